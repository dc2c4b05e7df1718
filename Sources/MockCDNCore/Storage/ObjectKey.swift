/// A validated object key such as `images/{uuid}/photo.jpg`: relative, no `.`/`..` or empty segments,
/// no control characters or backslashes, at most 1,024 UTF-8 bytes.
public struct ObjectKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The longest key accepted, in UTF-8 bytes (S3's limit).
    public static let maximumLength = 1024

    public let rawValue: String

    /// Validates `rawValue` as a key.
    ///
    /// - Parameter rawValue: the key text, already percent-decoded.
    /// - Throws: `MockCDNError.invalidObjectKey` with the reason.
    public init(_ rawValue: String) throws(MockCDNError) {
        guard !rawValue.isEmpty else { throw MockCDNError.invalidObjectKey("empty key") }
        guard rawValue.utf8.count <= Self.maximumLength else {
            throw MockCDNError.invalidObjectKey("key longer than \(Self.maximumLength) bytes")
        }
        guard !rawValue.hasPrefix("/") else { throw MockCDNError.invalidObjectKey("absolute key") }
        // One pass over the UTF-8 bytes (every read makes a key). Bytes of multi-byte characters are all
        // 0x80 or above, so checking bytes is checking characters. A control character anywhere is named
        // before a segment problem, wherever each falls.
        var segmentProblem: String?
        var segmentLength = 0
        var segmentDots = 0
        func endSegment() {
            guard segmentProblem == nil else { return }
            if segmentLength == 0 {
                segmentProblem = "empty path segment"
            } else if segmentDots == segmentLength, segmentLength <= 2 {
                segmentProblem = "dot segment"
            }
        }
        for byte in rawValue.utf8 {
            switch byte {
            // NUL and every other control character, plus backslash (a path separator on some systems).
            case 0..<0x20, 0x7f, UInt8(ascii: "\\"):
                throw MockCDNError.invalidObjectKey("control character or backslash in key")
            case UInt8(ascii: "/"):
                endSegment()
                segmentLength = 0
                segmentDots = 0
            case UInt8(ascii: "."):
                segmentLength += 1
                segmentDots += 1
            default:
                segmentLength += 1
            }
        }
        endSegment()
        if let segmentProblem { throw MockCDNError.invalidObjectKey(segmentProblem) }
        self.rawValue = rawValue
    }

    public var description: String { self.rawValue }

    public static func < (lhs: ObjectKey, rhs: ObjectKey) -> Bool { lhs.rawValue < rhs.rawValue }

    /// S3's listing order, by the keys' UTF-8 bytes (which is not Swift's `String` order).
    ///
    /// - Parameters:
    ///   - lhs: a key, or part of one.
    ///   - rhs: another.
    /// - Returns: true when `lhs` is listed first.
    public static func listedBefore(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }
}
