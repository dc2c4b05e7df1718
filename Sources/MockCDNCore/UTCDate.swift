/// A Unix time split into UTC calendar fields, and back, by plain arithmetic (Howard Hinnant's civil-date
/// algorithms): the wire formats (`X-Amz-Date`, S3's ISO 8601, HTTP's IMF-fixdate) are formatted per
/// request, where building a `Calendar` each time would cost more than the rest of the answer.
public struct UTCDate: Sendable, Equatable {
    public let year: Int64
    /// 1...12
    public let month: Int64
    /// 1...31
    public let day: Int64
    public let hour: Int64
    public let minute: Int64
    public let second: Int64
    /// 0 (Sunday) ... 6 (Saturday).
    public let weekday: Int64

    /// The fields of a Unix time.
    public init(unix: Int64) {
        let days = unix >= 0 ? unix / 86400 : (unix - 86399) / 86400
        let seconds = unix - days * 86400
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        self.day = dayOfYear - (153 * mp + 2) / 5 + 1
        self.month = mp < 10 ? mp + 3 : mp - 9
        self.year = yearOfEra + era * 400 + (self.month <= 2 ? 1 : 0)
        self.hour = seconds / 3600
        self.minute = seconds / 60 % 60
        self.second = seconds % 60
        // 1970-01-01 was a Thursday.
        self.weekday = ((days % 7) + 11) % 7
    }

    /// The Unix time of calendar fields; nil when they name no real moment (31 February, 25:00, ...).
    public static func unix(
        year: Int64,
        month: Int64,
        day: Int64,
        hour: Int64,
        minute: Int64,
        second: Int64
    ) -> Int64? {
        guard (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
            (0...60).contains(second)
        else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146097 + dayOfEra - 719468
        // Days past the month's end roll into the next month: refuse them.
        guard UTCDate(unix: days * 86400).day == day else { return nil }
        return days * 86400 + hour * 3600 + minute * 60 + second
    }

    /// `value` in decimal, left-padded with zeros to `width` digits.
    static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
