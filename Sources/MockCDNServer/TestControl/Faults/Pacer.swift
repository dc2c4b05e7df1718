import Foundation

/// Paces bytes to a rate: each piece waits until the bytes through it are due.
struct Pacer {
    let rate: Int
    let started = ContinuousClock.now
    private(set) var total = 0

    init(rate: Int) {
        self.rate = rate
    }

    /// Pieces small enough (an eighth of a second each) that pacing stays smooth.
    var pieceLength: Int { max(1, self.rate / 8) }

    mutating func wait(for bytes: Int) async throws {
        self.total += bytes
        let due = self.started + .nanoseconds(Int64(Double(self.total) / Double(self.rate) * 1e9))
        if due > .now { try await Task.sleep(until: due, clock: .continuous) }
    }
}
