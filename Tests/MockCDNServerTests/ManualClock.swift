import Synchronization

@testable import MockCDNServer

/// A monotonic clock that moves only when a test advances it: sleepers wake when the clock reaches their
/// deadline, and a test can await the moment a number of them are asleep, so nothing waits on real time.
final class ManualClock: Sendable {
    private struct Sleeper {
        let id: Int
        let deadline: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: UInt64 = 1_000_000_000
        var nextID = 0
        var sleepers: [Sleeper] = []
        /// Tests waiting for at least `count` sleepers.
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    var now: UInt64 { self.state.withLock { $0.now } }

    /// This clock as the stall watch reads it.
    var stallClock: StallClock {
        StallClock(now: { self.now }, sleep: { try await self.sleep($0) })
    }

    /// Waits until the clock has moved `nanoseconds` on; throws `CancellationError` when cancelled first.
    func sleep(_ nanoseconds: UInt64) async throws {
        let id = self.state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready: [CheckedContinuation<Void, Never>] = self.state.withLock { state in
                    state.sleepers.append(
                        Sleeper(id: id, deadline: state.now + nanoseconds, continuation: continuation)
                    )
                    let count = state.sleepers.count
                    let ready = state.watchers.filter { $0.count <= count }.map(\.continuation)
                    state.watchers.removeAll { $0.count <= count }
                    return ready
                }
                if Task.isCancelled { self.cancel(id) }
                for watcher in ready { watcher.resume() }
            }
        } onCancel: {
            self.cancel(id)
        }
    }

    private func cancel(_ id: Int) {
        let sleeper = self.state.withLock { state -> Sleeper? in
            guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
            return state.sleepers.remove(at: index)
        }
        sleeper?.continuation.resume(throwing: CancellationError())
    }

    /// Moves the clock on and wakes every sleeper whose deadline it reached.
    func advance(by nanoseconds: UInt64) {
        let woken = self.state.withLock { state in
            state.now += nanoseconds
            let now = state.now
            let woken = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return woken
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` sleepers are asleep.
    func sleepers(atLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = self.state.withLock { state in
                if state.sleepers.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
