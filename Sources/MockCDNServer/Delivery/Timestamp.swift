import Foundation
import MockCDNCore

/// The times deliveries, upload events and vendor webhooks carry.
enum Timestamp {
    /// `2026-11-25T10:00:00.123Z`: ISO 8601 in UTC with milliseconds, as AWS writes `eventTime`.
    ///
    /// - Parameter date: the time.
    /// - Returns: the text.
    static func text(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let fraction = String(seconds.remainder < 0 ? seconds.remainder + 1000 : seconds.remainder)
        let whole = seconds.remainder < 0 ? seconds.quotient - 1 : seconds.quotient
        return String(AmzDate.iso8601(whole).dropLast()) + "." + String(repeating: "0", count: 3 - fraction.count)
            + fraction + "Z"
    }
}
