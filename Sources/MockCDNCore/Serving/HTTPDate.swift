import Foundation

/// HTTP dates: written as IMF-fixdate (RFC 9110 section 5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`; read in
/// the forms clients send in `Date`, `x-amz-date` and the conditional headers (see `parse(_:)`).
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longDays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formats a date as IMF-fixdate.
    ///
    /// - Parameter date: the date; fractions of a second are dropped.
    /// - Returns: the text.
    public static func format(_ date: Date) -> String {
        let parts = UTCDate(unix: Int64(date.timeIntervalSince1970.rounded(.down)))
        // Every answer of a read carries one (`Last-Modified`): written byte by byte into one allocation, where
        // an interpolation made a dozen strings. A year outside 0...9999 is written as its text, padded to four.
        let year = (0...9999).contains(parts.year) ? nil : UTCDate.pad(parts.year, 4)
        return String(unsafeUninitializedCapacity: Self.fixdateLength - 4 + (year?.utf8.count ?? 4)) { text in
            var index = 0
            func put(_ byte: UInt8) {
                text[index] = byte
                index += 1
            }
            func put(_ name: String) {
                for byte in name.utf8 { put(byte) }
            }
            func put(_ value: Int64, digits: Int) {
                var divisor: Int64 = 1
                for _ in 1..<digits { divisor *= 10 }
                while divisor > 0 {
                    put(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / divisor % 10))
                    divisor /= 10
                }
            }
            put(Self.days[Int(parts.weekday)])
            put(", ")
            put(parts.day, digits: 2)
            put(UInt8(ascii: " "))
            put(Self.months[Int(parts.month) - 1])
            put(UInt8(ascii: " "))
            if let year { put(year) } else { put(parts.year, digits: 4) }
            put(UInt8(ascii: " "))
            put(parts.hour, digits: 2)
            put(UInt8(ascii: ":"))
            put(parts.minute, digits: 2)
            put(UInt8(ascii: ":"))
            put(parts.second, digits: 2)
            put(" GMT")
            return index
        }
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`.
    private static let fixdateLength = 29

    /// Parses an HTTP date in one of these forms, and nothing else:
    /// - IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`;
    /// - the same with a numeric zone, `Tue, 27 Mar 2007 19:36:42 +0000` or `-0700` (RFC 1123 section 5.2.14,
    ///   RFC 2822 section 3.3): S3 takes it in `Date`, AWS's SigV2 examples sign it, and Ruby's `rfc2822` and
    ///   Python's `formatdate()` write it. The zone is `+hhmm` or `-hhmm` (hours 00-23, minutes 00-59) and is
    ///   subtracted to give UTC; as RFC 1123 allows, the day may have one digit here;
    /// - RFC 9110's two obsolete forms, which it says a recipient must accept: rfc850-date,
    ///   `Sunday, 06-Nov-94 08:49:37 GMT`, whose two-digit year is the one within 50 years of now that is not
    ///   more than 50 years ahead, and asctime-date, `Sun Nov  6 08:49:37 1994` (UTC).
    ///
    /// The grammar is exact: names in their case, single spaces, the digits each field has, a date and time
    /// that exist (second 60 allowed); other zone names (`UTC`, `EST`, military letters) and RFC 2822's
    /// comments and optional fields are not read. The weekday is not checked against the date, as RFC 9110
    /// does not ask it. A date that is not read makes a conditional header ignored (a 200 instead of a 304,
    /// never a wrong 304) and a SigV2 request refused for want of a date.
    ///
    /// - Parameter text: the header value.
    /// - Returns: the date, or nil.
    public static func parse(_ text: String) -> Date? {
        self.parse(text, currentYear: UTCDate(unix: Int64(Date().timeIntervalSince1970.rounded(.down))).year)
    }

    /// `parse(_:)` with the year that rfc850-date's two-digit years are read around.
    ///
    /// - Parameters:
    ///   - text: the header value.
    ///   - currentYear: the clock's UTC year.
    /// - Returns: the date, or nil.
    static func parse(_ text: String, currentYear: Int64) -> Date? {
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        guard let first = fields.first else { return nil }
        let unix: Int64?
        if first.hasSuffix(",") {
            unix = first.count == 4 ? self.rfc1123(fields) : self.rfc850(fields, currentYear: currentYear)
        } else {
            unix = self.asctime(fields)
        }
        return unix.map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    // MARK: - The forms

    /// `Sun, 06 Nov 1994 08:49:37 GMT` or `Tue, 27 Mar 2007 19:36:42 +0000`.
    private static func rfc1123(_ fields: [Substring]) -> Int64? {
        guard fields.count == 6, days.contains(String(fields[0].dropLast())),
            let day = self.number(fields[1], digits: 1...2),
            let month = self.month(fields[2]),
            let year = self.number(fields[3], digits: 4...4),
            let offset = self.zoneOffset(fields[5])
        else { return nil }
        return self.unix(year: year, month: month, day: day, time: fields[4]).map { $0 - offset }
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`.
    private static func rfc850(_ fields: [Substring], currentYear: Int64) -> Int64? {
        let date = fields.count == 4 ? fields[1].split(separator: "-", omittingEmptySubsequences: false) : []
        guard date.count == 3, longDays.contains(String(fields[0].dropLast())), fields[3] == "GMT",
            let day = self.number(date[0], digits: 2...2),
            let month = self.month(date[1]),
            let twoDigitYear = self.number(date[2], digits: 2...2)
        else { return nil }
        // RFC 9110: a year that appears more than 50 years ahead is the most recent past one with those digits.
        let latest = currentYear + 50
        let year = latest - ((latest - twoDigitYear) % 100 + 100) % 100
        return self.unix(year: year, month: month, day: day, time: fields[2])
    }

    /// `Sun Nov  6 08:49:37 1994` or `Sun Nov 16 08:49:37 1994`.
    private static func asctime(_ fields: [Substring]) -> Int64? {
        // A one-digit day is padded with a space, which leaves an empty field before it.
        let rest = fields.count == 6 && fields[2].isEmpty && fields[3].count == 1 ? Array(fields[3...]) : []
        let tail = fields.count == 5 ? Array(fields[2...]) : rest
        guard tail.count == 3, days.contains(String(fields[0])),
            let month = self.month(fields[1]),
            let day = self.number(tail[0], digits: 1...2),
            tail[0].count == 2 || rest.count == 3,
            let year = self.number(tail[2], digits: 4...4)
        else { return nil }
        return self.unix(year: year, month: month, day: day, time: tail[1])
    }

    // MARK: - Fields

    /// Decimal digits only (`Int64` alone would take a sign), `digits` of them.
    private static func number(_ text: Substring, digits: ClosedRange<Int>) -> Int64? {
        guard digits.contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int64(text)
    }

    /// 1...12 for `Jan`...`Dec`.
    private static func month(_ text: Substring) -> Int64? {
        months.firstIndex(of: String(text)).map { Int64($0 + 1) }
    }

    /// Seconds east of UTC: 0 for `GMT`, else `+hhmm` or `-hhmm`.
    private static func zoneOffset(_ text: Substring) -> Int64? {
        if text == "GMT" { return 0 }
        guard let sign = text.first, sign == "+" || sign == "-",
            let hours = self.number(text.dropFirst().prefix(2), digits: 2...2),
            let minutes = self.number(text.dropFirst(3), digits: 2...2),
            hours <= 23, minutes <= 59
        else { return nil }
        return (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
    }

    /// The Unix time of a date and an `hh:mm:ss` time, nil when they name no real moment.
    private static func unix(year: Int64, month: Int64, day: Int64, time: Substring) -> Int64? {
        let parts = time.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let hour = self.number(parts[0], digits: 2...2),
            let minute = self.number(parts[1], digits: 2...2), let second = self.number(parts[2], digits: 2...2)
        else { return nil }
        return UTCDate.unix(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }
}
