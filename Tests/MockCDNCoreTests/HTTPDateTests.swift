import Foundation
import Testing

@testable import MockCDNCore

/// HTTP dates as clients send them: RFC 9110 section 5.6.7's three forms (its own example, 784111777), the
/// numeric zones of RFC 1123 and RFC 2822 that S3 takes in `Date`, and what is refused.
@Suite("HTTP dates")
struct HTTPDateTests {
    /// The year rfc850-date's two-digit years are read around in these tests.
    static let currentYear: Int64 = 2026

    @Test(
        "IMF-fixdate round-trips",
        arguments: [
            ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777 as Int64), ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
            ("Thu, 29 Feb 2024 12:00:00 GMT", 1_709_208_000), ("Tue, 14 Nov 2023 22:13:20 GMT", 1_700_000_000),
        ]
    )
    func imfFixdate(text: String, unix: Int64) throws {
        let parsed = try #require(HTTPDate.parse(text, currentYear: Self.currentYear))
        #expect(Int64(parsed.timeIntervalSince1970) == unix)
        #expect(HTTPDate.format(parsed) == text)
        #expect(HTTPDate.parse(text) == parsed)
    }

    @Test(
        "IMF-fixdate at the ends of the four-digit years and past them",
        arguments: [
            (-62_135_596_800 as Int64, "Mon, 01 Jan 0001 00:00:00 GMT"),
            (-59_042_995_201, "Wed, 31 Dec 0098 23:59:59 GMT"),
            (253_402_300_799, "Fri, 31 Dec 9999 23:59:59 GMT"),
            (253_402_300_800, "Sat, 01 Jan 10000 00:00:00 GMT"),
        ]
    )
    func imfFixdateEnds(unix: Int64, text: String) {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: Double(unix))) == text)
    }

    @Test(
        "the other forms name the same instant: numeric zones (converted to UTC), rfc850-date and asctime-date",
        arguments: [
            // RFC 9110 section 5.6.7's obsolete forms of its example.
            "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            // RFC 1123 / RFC 2822 zones, as AWS's SigV2 examples and Python's formatdate() write them.
            "Sun, 06 Nov 1994 08:49:37 +0000", "Sun, 06 Nov 1994 08:49:37 -0000", "Sun, 06 Nov 1994 01:49:37 -0700",
            "Sun, 06 Nov 1994 14:19:37 +0530", "Sat, 05 Nov 1994 23:49:37 -0900", "Mon, 07 Nov 1994 07:49:37 +2300",
            // RFC 1123's one-digit day.
            "Sun, 6 Nov 1994 08:49:37 GMT",
        ]
    )
    func sameInstant(text: String) {
        let parsed = HTTPDate.parse(text, currentYear: Self.currentYear)
        #expect(parsed.map { Int64($0.timeIntervalSince1970) } == 784_111_777)
    }

    @Test("asctime-date's two-digit day has no padding space")
    func asctimeTwoDigitDay() {
        #expect(HTTPDate.parse("Wed Nov 16 08:49:37 1994", currentYear: Self.currentYear) == self.date(784_975_777))
        #expect(HTTPDate.parse("Sun Nov 06 08:49:37 1994", currentYear: Self.currentYear) == self.date(784_111_777))
    }

    /// RFC 9110: a two-digit year that appears more than 50 years ahead is the most recent past year with
    /// those digits.
    @Test(
        "rfc850-date's two-digit year is within 50 years ahead of the clock's year, else the century before",
        arguments: [
            ("94", 2026 as Int64, 1994 as Int64), ("76", 2026, 2076), ("77", 2026, 1977), ("26", 2026, 2026),
            ("00", 2026, 2000), ("99", 2026, 1999), ("49", 2099, 2149), ("50", 2099, 2050), ("49", 1999, 2049),
            ("50", 1999, 1950),
        ]
    )
    func rfc850Century(twoDigitYear: String, currentYear: Int64, year: Int64) throws {
        let parsed = try #require(
            HTTPDate.parse("Saturday, 01-Jan-\(twoDigitYear) 00:00:00 GMT", currentYear: currentYear)
        )
        #expect(UTCDate(unix: Int64(parsed.timeIntervalSince1970)).year == year)
    }

    @Test(
        "anything else is not read",
        arguments: [
            "", "yesterday", "1994-11-06T08:49:37Z", "20070327T193642Z", "784111777",
            // Out of range, or no such day.
            "Sun, 06 Nov 1994 25:61:99 GMT", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 +2400",
            "Sun, 06 Nov 1994 08:49:37 +0060", "Sun, 00 Nov 1994 08:49:37 GMT",
            // Names that are not the grammar's, in case or spelling.
            "Sun, 06 Nov 1994 08:49:37 gmt", "Sun, 06 nov 1994 08:49:37 GMT", "Sun, 06 November 1994 08:49:37 GMT",
            "Sunday, 06 Nov 1994 08:49:37 GMT", "Sun, 06-Nov-94 08:49:37 GMT", "Sonntag, 06-Nov-94 08:49:37 GMT",
            // Zones other than GMT and +-hhmm, and numeric ones malformed.
            "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49:37 UT", "Sun, 06 Nov 1994 08:49:37 EST",
            "Sun, 06 Nov 1994 08:49:37 Z", "Sun, 06 Nov 1994 08:49:37 +00:00", "Sun, 06 Nov 1994 08:49:37 +000",
            "Sun, 06 Nov 1994 08:49:37 +00000", "Sun, 06 Nov 1994 08:49:37 0000", "Sun, 06 Nov 1994 08:49:37 +-100",
            "Sunday, 06-Nov-94 08:49:37 +0000", "Sun Nov  6 08:49:37 1994 GMT",
            // Digits: a sign, the wrong count, a missing field, a comment, spaces.
            "Sun, +6 Nov 1994 08:49:37 GMT", "Sun, 006 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT",
            "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Nov 1994 08:49:37",
            "06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 +0000 (UTC)", "Sun,  06 Nov 1994 08:49:37 GMT",
            " Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT ", "Sun Nov 6 08:49:37 1994",
            "Sun Nov   6 08:49:37 1994", "Sun Nov  16 08:49:37 1994", "Sunday, 06-Nov-1994 08:49:37 GMT",
            "Sunday, 6-Nov-94 08:49:37 GMT", "Sunday, 06-Nov-+4 08:49:37 GMT",
        ]
    )
    func refused(text: String) {
        #expect(HTTPDate.parse(text, currentYear: Self.currentYear) == nil)
    }

    private func date(_ unix: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(unix))
    }
}
