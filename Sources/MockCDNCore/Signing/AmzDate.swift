/// The UTC timestamps SigV4 and S3 put on the wire: `20261121T134447Z` (`X-Amz-Date`) and
/// `2026-11-21T13:44:47Z` (S3's `Expires` and `ServerTime`), on `UTCDate`'s arithmetic.
public enum AmzDate {
    /// `yyyyMMdd'T'HHmmss'Z'`.
    ///
    /// - Parameter unix: Unix seconds.
    /// - Returns: the text.
    public static func compact(_ unix: Int64) -> String {
        let date = UTCDate(unix: unix)
        return pad(date.year, 4) + pad(date.month, 2) + pad(date.day, 2) + "T" + pad(date.hour, 2) + pad(date.minute, 2)
            + pad(date.second, 2) + "Z"
    }

    /// `yyyy-MM-dd'T'HH:mm:ss'Z'`.
    ///
    /// - Parameter unix: Unix seconds.
    /// - Returns: the text.
    public static func iso8601(_ unix: Int64) -> String {
        let date = UTCDate(unix: unix)
        return pad(date.year, 4) + "-" + pad(date.month, 2) + "-" + pad(date.day, 2) + "T" + pad(date.hour, 2) + ":"
            + pad(date.minute, 2) + ":" + pad(date.second, 2) + "Z"
    }

    /// Reads `yyyyMMdd'T'HHmmss'Z'`; nil for anything else, including impossible dates such as 31 February.
    ///
    /// - Parameter text: the `X-Amz-Date` value.
    /// - Returns: Unix seconds.
    public static func parseCompact(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? { Self.decimal(bytes[range]) }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
            let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15), second < 60
        else { return nil }
        return UTCDate.unix(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Reads `yyyy-MM-dd'T'HH:mm:ss'Z'`, with or without a fraction of a second (`.000Z`, as AWS's POST policy
    /// examples write it; botocore writes none); nil for anything else, an offset or a space for the `T`
    /// included, as S3 refuses those in a POST policy's `expiration`.
    ///
    /// - Parameter text: the timestamp.
    /// - Returns: Unix seconds, the fraction dropped.
    public static func parseISO8601(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 30, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            bytes.last == UInt8(ascii: "Z")
        else { return nil }
        // Nothing, or a dot and one to nine digits, between the seconds and the `Z`.
        let fraction = bytes[19..<(bytes.count - 1)]
        guard
            fraction.isEmpty
                || (fraction.first == UInt8(ascii: ".") && fraction.count >= 2
                    && fraction.dropFirst().allSatisfy { (48...57).contains($0) })
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? { Self.decimal(bytes[range]) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19), second < 60
        else { return nil }
        return UTCDate.unix(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String { UTCDate.pad(value, width) }

    /// The value of ASCII decimal digits; nil when a byte is no digit.
    private static func decimal(_ digits: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        for byte in digits {
            guard (48...57).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - 48)
        }
        return value
    }
}
