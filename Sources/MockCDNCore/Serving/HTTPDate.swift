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
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return
            "\(days[(parts.weekday ?? 1) - 1]), \(two(parts.day)) \(months[(parts.month ?? 1) - 1]) \(parts.year ?? 1970) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) GMT"
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
            let day = Int(fields[1]), fields[1].count == 2,
            let monthIndex = months.firstIndex(of: String(fields[2])),
            let year = Int(fields[3]), fields[3].count == 4
        else { return nil }
        let time = fields[4].split(separator: ":")
        guard time.count == 3, time.allSatisfy({ $0.count == 2 }),
            let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        let components = DateComponents(
            year: year,
            month: monthIndex + 1,
            day: day,
            hour: hour,
            minute: minute,
            second: second
        )
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == day  // rejects 31 Feb and the like
        else { return nil }
        return date
    }
}
