/// S3's rules for a general purpose bucket's name: 3 to 63 of `a-z`, `0-9`, `.` and `-`, starting and ending
/// with a letter or digit, no `..`, not an IPv4 address, none of the prefixes and suffixes S3 keeps for
/// itself.
public enum BucketName {
    /// Why `name` is no bucket name S3 takes; nil when it is one.
    ///
    /// - Parameter name: the name.
    /// - Returns: the rule it breaks, in words, or nil.
    public static func problem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return "a bucket name is 3 to 63 characters long" }
        func isLetterOrDigit(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard bytes.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }) else {
            return "a bucket name holds only lower-case letters, digits, dots and hyphens"
        }
        guard isLetterOrDigit(bytes.first!), isLetterOrDigit(bytes.last!) else {
            return "a bucket name starts and ends with a letter or a digit"
        }
        guard !name.contains("..") else { return "a bucket name has no two dots in a row" }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard !(parts.count == 4 && parts.allSatisfy({ UInt8($0) != nil })) else {
            return "a bucket name is not an IP address"
        }
        if let prefix = ["xn--", "sthree-", "amzn-s3-demo-"].first(where: name.hasPrefix) {
            return "a bucket name does not start with \(prefix)"
        }
        if let suffix = ["-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"].first(where: name.hasSuffix) {
            return "a bucket name does not end with \(suffix)"
        }
        return nil
    }
}
