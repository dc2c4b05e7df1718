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
