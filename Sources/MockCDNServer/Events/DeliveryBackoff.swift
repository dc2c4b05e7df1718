/// When a failed webhook delivery is tried again, on the virtual clock: 10 s after the first attempt failed,
/// then 30 s, 2 min and 10 min; five attempts in all. `POST /_mockcdn/clock/advance` past a due time runs
/// the attempt at once (the clock also runs with real time, so a due attempt also runs by itself).
enum DeliveryBackoff {
    /// Seconds from a failed attempt to the next, by the failed attempt's number (1 for the first).
    static let delays: [Int] = [10, 30, 120, 600]

    /// The most attempts a delivery gets.
    static var maximumAttempts: Int { Self.delays.count + 1 }

    /// Seconds from failed attempt `attempt` to the next; nil when it was the last.
    ///
    /// - Parameter attempt: the failed attempt's number, from 1.
    /// - Returns: the delay, or nil when no attempt follows.
    static func delay(after attempt: Int) -> Int? {
        guard attempt >= 1, attempt <= Self.delays.count else { return nil }
        return Self.delays[attempt - 1]
    }
}
