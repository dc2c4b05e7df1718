/// The UTC timestamps SigV4 and S3 put on the wire: `20261121T134447Z` (`X-Amz-Date`) and
/// `2026-11-21T13:44:47Z` (S3's `Expires` and `ServerTime`). Plain arithmetic on Unix seconds (Howard
/// Hinnant's civil-date algorithms), so no calendar or formatter is built per request.
public enum AmzDate {
    /// `yyyyMMdd'T'HHmmss'Z'`.
    ///
    /// - Parameter unix: Unix seconds.
    /// - Returns: the text.
    public static func compact(_ unix: Int64) -> String {
        let (year, month, day, seconds) = self.civil(unix)
        return pad(year, 4) + pad(month, 2) + pad(day, 2) + "T" + pad(seconds / 3600, 2) + pad(seconds / 60 % 60, 2)
            + pad(seconds % 60, 2) + "Z"
    }

    /// `yyyy-MM-dd'T'HH:mm:ss'Z'`.
    ///
    /// - Parameter unix: Unix seconds.
    /// - Returns: the text.
    public static func iso8601(_ unix: Int64) -> String {
        let (year, month, day, seconds) = self.civil(unix)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(seconds / 3600, 2) + ":"
            + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2) + "Z"
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
            let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        let days = self.days(year: year, month: month, day: day)
        // Reject days past the month's end: they roll over into the next month.
        guard self.civil(days * 86400).day == day else { return nil }
        return days * 86400 + hour * 3600 + minute * 60 + second
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    private static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    /// Year, month, day and seconds into the day of a Unix time.
    private static func civil(_ unix: Int64) -> (year: Int64, month: Int64, day: Int64, seconds: Int64) {
        let days = unix >= 0 ? unix / 86400 : (unix - 86399) / 86400
        let seconds = unix - days * 86400
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day, seconds)
    }
}
