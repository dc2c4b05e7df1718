import Foundation

/// IMF-fixdate (RFC 9110 section 5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formats a date as IMF-fixdate.
    ///
    /// - Parameter date: the date; fractions of a second are dropped.
    /// - Returns: the text.
    public static func format(_ date: Date) -> String {
        let parts = UTCDate(unix: Int64(date.timeIntervalSince1970.rounded(.down)))
        return "\(days[Int(parts.weekday)]), \(UTCDate.pad(parts.day, 2)) \(months[Int(parts.month) - 1]) "
            + "\(UTCDate.pad(parts.year, 4)) \(UTCDate.pad(parts.hour, 2)):\(UTCDate.pad(parts.minute, 2)):"
            + "\(UTCDate.pad(parts.second, 2)) GMT"
    }

    /// Parses IMF-fixdate; nil for anything else (a recipient then ignores the header). The obsolete
    /// rfc850 and asctime forms are not read yet: such a header is ignored, which costs a 200 instead of a
    /// 304, never a wrong 304.
    ///
    /// - Parameter text: the header value.
    /// - Returns: the date.
    public static func parse(_ text: String) -> Date? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[0].count == 4, fields[0].hasSuffix(","), fields[5] == "GMT",
            days.contains(String(fields[0].dropLast())),
            let day = Int64(fields[1]), fields[1].count == 2,
            let monthIndex = months.firstIndex(of: String(fields[2])),
            let year = Int64(fields[3]), fields[3].count == 4
        else { return nil }
        let time = fields[4].split(separator: ":")
        guard time.count == 3, time.allSatisfy({ $0.count == 2 }),
            let hour = Int64(time[0]), let minute = Int64(time[1]), let second = Int64(time[2]),
            let unix = UTCDate.unix(
                year: year,
                month: Int64(monthIndex + 1),
                day: day,
                hour: hour,
                minute: minute,
                second: second
            )
        else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(unix))
    }
}
