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
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
            let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15), second < 60
        else { return nil }
        return UTCDate.unix(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String { UTCDate.pad(value, width) }
}
