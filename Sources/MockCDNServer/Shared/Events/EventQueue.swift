import Synchronization

/// The built-in queue: the last `capacity` events, which `GET /_mockcdn/events` reads, and the long polls
/// waiting for the next one. A poll waits on a continuation that `append` resumes, so it answers as soon as
/// the event is in, with no timer in between.
final class EventQueue: Sendable {
    /// The most events kept; the oldest goes first.
    static let capacity = 1000

    /// The ring and the waiting polls, under one lock.
    private struct State {
        var events: [QueuedEvent] = []
        /// Where the oldest event sits in `events` once the ring is full.
        var start = 0
        var nextID = 1
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// How many long polls wait for an event now.
    var waiting: Int { self.state.withLock { $0.waiters.count } }

    /// The id the next event will get, minus one: the id of the newest event there was.
    var lastID: Int { self.state.withLock { $0.nextID - 1 } }

    /// Adds an event, giving it the next id, and wakes every poll.
    ///
    /// - Parameter make: builds the event from its id.
    /// - Returns: the event.
    @discardableResult
    func append(_ make: (Int) -> QueuedEvent) -> QueuedEvent {
        let (event, waiters) = self.state.withLock { state in
            let event = make(state.nextID)
            state.nextID += 1
            if state.events.count < Self.capacity {
                state.events.append(event)
            } else {
                state.events[state.start] = event
                state.start = (state.start + 1) % Self.capacity
            }
            let waiters = state.waiters.values
            state.waiters = [:]
            return (event, Array(waiters))
        }
        for waiter in waiters { waiter.resume() }
        return event
    }

    /// The kept events, oldest first.
    var events: [QueuedEvent] {
        self.state.withLock { state in Array(state.events[state.start...] + state.events[..<state.start]) }
    }

    /// The kept events that pass `include`, oldest first; waits up to `wait` for one when there is none.
    ///
    /// - Parameters:
    ///   - wait: how long to wait for a first matching event.
    ///   - include: which events count.
    /// - Returns: the matching events (empty when the wait ran out).
    func events(
        waiting wait: Duration,
        where include: @escaping @Sendable (QueuedEvent) -> Bool
    ) async
        -> [QueuedEvent]
    {
        let deadline = ContinuousClock.now + wait
        while true {
            // Read before filtering: an event appended after this wakes the wait below at once.
            let seen = self.lastID
            let found = self.events.filter(include)
            if !found.isEmpty || ContinuousClock.now >= deadline || Task.isCancelled { return found }
            await self.next(after: seen, before: deadline)
        }
    }

    /// Returns when an event after `seen` is appended (at once if one is), at `deadline`, or when the task
    /// is cancelled, whichever is first.
    private func next(after seen: Int, before deadline: ContinuousClock.Instant) async {
        let id = self.state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let resumeNow = self.state.withLock { state in
                            // An event appended between reading and waiting must not be slept through.
                            if state.nextID - 1 != seen || Task.isCancelled { return true }
                            state.waiters[id] = continuation
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: {
                    self.state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
                }
            }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Forgets every event (ids go on from where they were, so a poll's `after` stays meaningful) and wakes
    /// the polls.
    func clear() {
        let waiters = self.state.withLock { state in
            state.events = []
            state.start = 0
            let waiters = Array(state.waiters.values)
            state.waiters = [:]
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
