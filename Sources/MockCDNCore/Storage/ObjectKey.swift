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
        // NUL and every other control character, plus backslash (a path separator on some systems).
        guard !rawValue.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f || $0 == "\\" }) else {
            throw MockCDNError.invalidObjectKey("control character or backslash in key")
        }
        for segment in rawValue.split(separator: "/", omittingEmptySubsequences: false) {
            guard !segment.isEmpty else { throw MockCDNError.invalidObjectKey("empty path segment") }
            guard segment != ".", segment != ".." else { throw MockCDNError.invalidObjectKey("dot segment") }
        }
        self.rawValue = rawValue
    }

    public var description: String { self.rawValue }

    public static func < (lhs: ObjectKey, rhs: ObjectKey) -> Bool { lhs.rawValue < rhs.rawValue }
}
