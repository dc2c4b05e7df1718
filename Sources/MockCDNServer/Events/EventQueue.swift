import Synchronization

/// The built-in queue: the last `capacity` events, which `GET /_mockcdn/events` reads, and the long polls
/// waiting for the next one. A poll waits on a continuation with its filter; `append` resumes only the polls
/// whose filter the new event passes, so it answers as soon as its event is in, with no timer in between, and
/// an event no poll wants wakes none (thousands of waiting polls cost an upload nothing but their filters).
/// A poll whose task is cancelled (its client went away) stops waiting, and counting, at once.
final class EventQueue: Sendable {
    /// The most events kept; the oldest goes first.
    static let capacity = 1000

    /// A waiting poll.
    private struct Waiter {
        /// Which events it takes.
        let include: @Sendable (QueuedEvent) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    /// The ring and the waiting polls, under one lock.
    private struct State {
        var events: [QueuedEvent] = []
        /// Where the oldest event sits in `events` once the ring is full.
        var start = 0
        var nextID = 1
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
        /// Polls an appended event woke, since the start.
        var woken = 0
        /// Who waits for the number of waiting polls to be a given one (`waiting(count:)`), by id.
        var watchers: [Int: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWatcher = 0

        /// Takes the watchers the number of waiting polls now satisfies, to be resumed outside the lock.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let count = self.waiters.count
            let due = self.watchers.filter { $0.value.count == count }
            for id in due.keys { self.watchers[id] = nil }
            return due.values.map(\.continuation)
        }
    }

    private let state = Mutex(State())

    /// How many long polls wait for an event now.
    var waiting: Int { self.state.withLock { $0.waiters.count } }

    /// How many waiting polls appended events have woken since the start: an event wakes only the polls that
    /// take it.
    var woken: Int { self.state.withLock { $0.woken } }

    /// The id the next event will get, minus one: the id of the newest event there was.
    var lastID: Int { self.state.withLock { $0.nextID - 1 } }

    /// Adds an event, giving it the next id, and wakes the polls that take it.
    ///
    /// - Parameter make: builds the event from its id.
    /// - Returns: the event.
    @discardableResult
    func append(_ make: (Int) -> QueuedEvent) -> QueuedEvent {
        let (event, woken, watchers) = self.state.withLock { state in
            let event = make(state.nextID)
            state.nextID += 1
            if state.events.count < Self.capacity {
                state.events.append(event)
            } else {
                state.events[state.start] = event
                state.start = (state.start + 1) % Self.capacity
            }
            // Each filter is a few comparisons; a poll whose filter refuses the event goes on waiting untouched.
            let taking = state.waiters.compactMap { $0.value.include(event) ? $0.key : nil }
            let woken = taking.compactMap { state.waiters.removeValue(forKey: $0)?.continuation }
            state.woken += woken.count
            return (event, woken, woken.isEmpty ? [] : state.satisfiedWatchers())
        }
        for continuation in woken + watchers { continuation.resume() }
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
    /// - Returns: the matching events (empty when the wait ran out or the task was cancelled).
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
            await self.next(after: seen, taking: include, before: deadline)
        }
    }

    /// Returns when an event after `seen` that `include` takes is appended (at once if any event came after
    /// `seen`), at `deadline`, or when the task is cancelled, whichever is first.
    private func next(
        after seen: Int,
        taking include: @escaping @Sendable (QueuedEvent) -> Bool,
        before deadline: ContinuousClock.Instant
    ) async {
        let id = self.state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let (resumeNow, watchers) = self.state.withLock { state in
                            // An event appended between reading and waiting must not be slept through.
                            if state.nextID - 1 != seen || Task.isCancelled {
                                return (true, [CheckedContinuation<Void, Never>]())
                            }
                            state.waiters[id] = Waiter(include: include, continuation: continuation)
                            return (false, state.satisfiedWatchers())
                        }
                        for watcher in watchers { watcher.resume() }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: {
                    self.stopWaiting(id)
                }
            }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Takes a poll off the waiting list (its wait ran out or its client went away) and resumes it.
    private func stopWaiting(_ id: Int) {
        let (waiter, watchers) = self.state.withLock { state in
            let waiter = state.waiters.removeValue(forKey: id)
            return (waiter, waiter == nil ? [] : state.satisfiedWatchers())
        }
        waiter?.continuation.resume()
        for watcher in watchers { watcher.resume() }
    }

    /// Returns once exactly `count` polls wait (at once if they do now), or when the task is cancelled: a
    /// test awaits a poll's arrival or departure with it instead of sleeping.
    ///
    /// - Parameter count: the number of waiting polls to wait for.
    func waiting(count: Int) async {
        let id = self.state.withLock { state in
            state.nextWatcher += 1
            return state.nextWatcher
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = self.state.withLock { state in
                    guard state.waiters.count != count, !Task.isCancelled else { return true }
                    state.watchers[id] = (count, continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            self.state.withLock { $0.watchers.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// Forgets every event (ids go on from where they were, so a poll's `after` stays meaningful) and wakes
    /// the polls.
    func clear() {
        let (waiters, watchers) = self.state.withLock { state in
            state.events = []
            state.start = 0
            let waiters = state.waiters.values.map(\.continuation)
            state.waiters = [:]
            return (waiters, state.satisfiedWatchers())
        }
        for continuation in waiters + watchers { continuation.resume() }
    }
}
