/// RFC 3986 percent-encoding as SigV4 and MockCDN's links use it: everything but the unreserved characters
/// (ASCII letters and digits, `-._~`) becomes `%XX` with upper-case hex digits.
public enum PercentEncoding {
    /// Encodes `text`, `/` included.
    ///
    /// - Parameter text: the text, e.g. one path segment or a query value.
    /// - Returns: the encoded text.
    public static func encode(_ text: some StringProtocol) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0f)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Encodes each `/`-separated segment of a path, keeping the slashes (S3's canonical URI).
    ///
    /// - Parameter path: the decoded path.
    /// - Returns: the encoded path.
    public static func encodePath(_ path: some StringProtocol) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { encode($0) }.joined(separator: "/")
    }

    /// Percent-decodes UTF-8 bytes on the bytes themselves (Foundation's `removingPercentEncoding` bridges
    /// through NSString, which costs more per request than the rest of a read).
    ///
    /// - Parameter bytes: the encoded text.
    /// - Returns: the text, or nil for a malformed escape or bytes that are not UTF-8.
    @inlinable
    public static func decode(_ bytes: some Collection<UInt8>) -> String? {
        // Contiguous bytes (every caller's) take the non-generic path: a generic scan across the module
        // boundary runs unspecialised, one witness call per byte, and was a seventh of a signed read.
        if let decoded = bytes.withContiguousStorageIfAvailable({ Self.decode(buffer: $0) }) { return decoded }
        return Array(bytes).withUnsafeBufferPointer { Self.decode(buffer: $0) }
    }

    /// `decode(_:)` on a buffer.
    public static func decode(buffer: UnsafeBufferPointer<UInt8>) -> String? {
        guard buffer.contains(UInt8(ascii: "%")) else { return String(validating: buffer, as: UTF8.self) }
        return self.decodedBytes(buffer, lenient: false).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// Percent-decodes bytes, which need not be UTF-8.
    ///
    /// - Parameters:
    ///   - bytes: the encoded text.
    ///   - lenient: a `%` not followed by two hex digits stays as it is (so a malformed escape cannot hide
    ///     what follows it, for the journal's redaction); otherwise it makes the text malformed.
    /// - Returns: the decoded bytes; nil for a malformed escape unless `lenient`.
    public static func decodedBytes(_ bytes: some Collection<UInt8>, lenient: Bool) -> [UInt8]? {
        let bytes = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "%") else {
                out.append(bytes[index])
                index += 1
                continue
            }
            if index + 2 < bytes.count, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else if lenient {
                out.append(bytes[index])
                index += 1
            } else {
                return nil
            }
        }
        return out
    }

    private static func hex(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
