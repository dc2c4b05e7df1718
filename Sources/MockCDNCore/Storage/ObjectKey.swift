/// A stored object's key, `{app}/{key}`: the app (the bucket) and the object's key within it.
///
/// The key within the app follows S3's rules: 1 to 1,024 bytes of UTF-8, dot segments (`a/../b`), empty
/// segments (`a//b`) and a trailing `/` (`dir/`) included, each kept as sent. MockCDN refuses control
/// characters, which S3's XML answers cannot carry. Keys are byte sequences, as on S3: two keys are equal,
/// hash alike and are listed in order by their UTF-8 bytes, so `café` written as NFC (`caf\u{e9}`) and as NFD
/// (`cafe\u{301}`) are two objects, although Swift's `String` calls them equal.
///
/// What MockCDN's own links, FAT and CloudFront reads, and Stream's and CometChat's routes address is a
/// stricter media path (`isMediaPath`): no dot or empty segments, no trailing `/`, no backslash.
public struct ObjectKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The longest key within an app, in UTF-8 bytes (S3's limit).
    public static let maximumLength = 1024

    public let rawValue: String

    /// Validates `rawValue` as a key.
    ///
    /// - Parameter rawValue: `{app}/{key}`, already percent-decoded.
    /// - Throws: `MockCDNError.keyTooLong` past 1,024 bytes within the app, `MockCDNError.invalidObjectKey`
    ///   with the reason otherwise.
    public init(_ rawValue: String) throws(MockCDNError) {
        let bytes = rawValue.utf8
        guard bytes.first != UInt8(ascii: "/") else { throw MockCDNError.invalidObjectKey("a key needs its app") }
        // The key within the app: after the app's segment (a key MockCDN keeps for itself may have none).
        let key = bytes.firstIndex(of: UInt8(ascii: "/")).map { bytes[bytes.index(after: $0)...] } ?? bytes[...]
        guard !key.isEmpty else { throw MockCDNError.invalidObjectKey("empty key") }
        guard key.count <= Self.maximumLength else { throw MockCDNError.keyTooLong(limit: Self.maximumLength) }
        // NUL and every other control character. Bytes of multi-byte characters are all 0x80 or above, so
        // checking bytes is checking characters.
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7f }) else {
            throw MockCDNError.invalidObjectKey("control character in key")
        }
        self.rawValue = rawValue
    }

    /// Whether the key is a media path as well: no dot segment, no empty segment (a trailing `/` is one), no
    /// backslash (a path separator on some systems). Links and the vendors' routes address only these.
    public var isMediaPath: Bool {
        var segmentLength = 0
        var segmentDots = 0
        for byte in self.rawValue.utf8 {
            switch byte {
            case UInt8(ascii: "\\"):
                return false
            case UInt8(ascii: "/"):
                if segmentLength == 0 || (segmentDots == segmentLength && segmentLength <= 2) { return false }
                segmentLength = 0
                segmentDots = 0
            case UInt8(ascii: "."):
                segmentLength += 1
                segmentDots += 1
            default:
                segmentLength += 1
            }
        }
        return segmentLength > 0 && !(segmentDots == segmentLength && segmentLength <= 2)
    }

    /// The key as a media path.
    ///
    /// - Throws: `MockCDNError.invalidObjectKey` when it is no media path (`isMediaPath`).
    public func requireMediaPath() throws(MockCDNError) {
        guard self.isMediaPath else {
            throw MockCDNError.invalidObjectKey("dot segment, empty segment or backslash in a media path")
        }
    }

    public var description: String { self.rawValue }

    public static func == (lhs: ObjectKey, rhs: ObjectKey) -> Bool {
        let (left, right) = (lhs.rawValue.utf8, rhs.rawValue.utf8)
        guard left.count == right.count else { return false }
        let contiguous = left.withContiguousStorageIfAvailable { left in
            right.withContiguousStorageIfAvailable { right in left.elementsEqual(right) }
        }
        if let contiguous, let equal = contiguous { return equal }
        return left.elementsEqual(right)
    }

    public func hash(into hasher: inout Hasher) {
        let bytes = self.rawValue.utf8
        if bytes.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            for byte in bytes { hasher.combine(byte) }
        }
        hasher.combine(bytes.count)
    }

    public static func < (lhs: ObjectKey, rhs: ObjectKey) -> Bool { listedBefore(lhs.rawValue, rhs.rawValue) }

    /// S3's listing order, by the keys' UTF-8 bytes (which is not Swift's `String` order).
    ///
    /// - Parameters:
    ///   - lhs: a key, or part of one.
    ///   - rhs: another.
    /// - Returns: true when `lhs` is listed first.
    public static func listedBefore(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }
}
