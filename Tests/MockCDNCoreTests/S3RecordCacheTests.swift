import Foundation
import MockCDNCore
import Synchronization
import Testing

@testable import MockCDNS3

/// The S3 store's record cache on its own (no bucket): a record that is not fresh is read once for every
/// reader that wants it at the same time, and sharing that read never stretches the staleness bound.
@Suite("S3 record cache")
struct S3RecordCacheTests {
    /// A clock that moves only when told.
    final class ManualTime: Sendable {
        private let current = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
        var now: Date { self.current.withLock { $0 } }
        func advance(by seconds: TimeInterval) { self.current.withLock { $0 += seconds } }
    }

    /// A count that tasks add to, and that a test can wait on: no poll, no real time.
    final class Counter: Sendable {
        private let state = Mutex<(count: Int, waiting: [(at: Int, continuation: CheckedContinuation<Void, Never>)])>(
            (0, [])
        )
        var count: Int { self.state.withLock { $0.count } }

        func add() {
            let reached = self.state.withLock { state in
                state.count += 1
                let count = state.count
                defer { state.waiting.removeAll { $0.at <= count } }
                return state.waiting.filter { $0.at <= count }
            }
            for waiter in reached { waiter.continuation.resume() }
        }

        /// Returns once the count is at least `count` (the test's time limit bounds the wait).
        func reached(_ count: Int) async {
            await withCheckedContinuation { continuation in
                let already = self.state.withLock { state in
                    if state.count >= count { return true }
                    state.waiting.append((count, continuation))
                    return false
                }
                if already { continuation.resume() }
            }
        }
    }

    /// A record GET that answers when the test says so, counting how many were sent.
    final class HeldFetch: Sendable {
        private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))
        private let sentCount = Counter()
        let answer: S3ObjectStore.Record?

        init(answer: S3ObjectStore.Record?) { self.answer = answer }

        var sent: Int { self.sentCount.count }

        func fetch() async throws -> S3ObjectStore.Record? {
            await withCheckedContinuation { continuation in
                let open = self.state.withLock { state in
                    if !state.open { state.waiting.append(continuation) }
                    return state.open
                }
                self.sentCount.add()
                if open { continuation.resume() }
            }
            return self.answer
        }

        func release() {
            let waiting = self.state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }

        /// Returns once `count` GETs were sent.
        func waitUntilSent(_ count: Int) async {
            await self.sentCount.reached(count)
        }
    }

    static let key = try! ObjectKey("attachments/1/a.bin")

    static func record(owner: String) -> S3ObjectStore.Record {
        S3ObjectStore.Record(
            metadata: ObjectMetadata(
                key: Self.key,
                size: 3,
                sha256: Array(repeating: 0, count: 32),
                attributes: ObjectAttributes(contentType: "application/octet-stream", owner: owner)
            ),
            blob: "blobs/attachments/1/a.bin/\(owner)"
        )
    }

    /// A cache with a 1 s bound on a clock the test moves, and a record GET of alice's record that waits to be
    /// released.
    static func heldCache() -> (ManualTime, S3RecordCache, HeldFetch) {
        let time = ManualTime()
        let cache = S3RecordCache(staleness: .seconds(1), capacity: 10, now: { time.now })
        return (time, cache, HeldFetch(answer: Self.record(owner: "alice")))
    }

    /// What `S3ObjectStore.currentRecord` does: the fresh entry, else the shared read.
    static func current(_ cache: S3RecordCache, _ fetch: HeldFetch) async throws -> S3ObjectStore.Record? {
        if let fresh = cache.fresh(Self.key) { return fresh }
        return try await cache.read(Self.key) { try await fetch.fetch() }
    }

    @Test("readers that miss at the same time share one record GET, and its answer is kept", .timeLimit(.minutes(1)))
    func sharedRead() async throws {
        let (_, cache, fetch) = Self.heldCache()
        let started = Counter()
        try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    started.add()
                    return try await Self.current(cache, fetch)?.metadata.owner
                }
            }
            await fetch.waitUntilSent(1)
            // Released once every reader has started, so that the readers meet the GET in flight. Whenever a late
            // one arrives, it finds the GET in flight or its answer fresh (the clock does not move): the count
            // below does not depend on how long this takes, only on the sharing.
            await started.reached(32)
            fetch.release()
            for try await owner in group { #expect(owner == "alice") }
        }
        #expect(fetch.sent == 1)
        #expect(cache.fresh(Self.key)?.metadata.owner == "alice")
    }

    @Test(
        "a shared record is dated when its GET was sent, so it is never trusted past the bound",
        .timeLimit(.minutes(1))
    )
    func datedWhenSent() async throws {
        let (time, cache, fetch) = Self.heldCache()
        async let read = Self.current(cache, fetch)
        await fetch.waitUntilSent(1)
        time.advance(by: 0.5)
        fetch.release()
        #expect(try await read?.metadata.owner == "alice")
        time.advance(by: 0.25)
        #expect(cache.fresh(Self.key) != nil)
        // 1.25 s after the GET was sent, 0.75 s after it answered: expired.
        time.advance(by: 0.5)
        #expect(cache.fresh(Self.key) == nil)
    }

    @Test("a GET sent longer ago than the bound is not joined; a new one is sent", .timeLimit(.minutes(1)))
    func oldFlightNotJoined() async throws {
        let (time, cache, fetch) = Self.heldCache()
        async let first = Self.current(cache, fetch)
        await fetch.waitUntilSent(1)
        time.advance(by: 1)
        async let second = Self.current(cache, fetch)
        await fetch.waitUntilSent(2)
        fetch.release()
        #expect(try await first?.metadata.owner == "alice")
        #expect(try await second?.metadata.owner == "alice")
        #expect(fetch.sent == 2)
    }

    @Test("the store's own write while a record GET is in flight wins over what that GET read", .timeLimit(.minutes(1)))
    func writeDuringFlight() async throws {
        let time = ManualTime()
        let cache = S3RecordCache(staleness: .seconds(60), capacity: 10, now: { time.now })
        let old = HeldFetch(answer: Self.record(owner: "alice"))
        async let read = Self.current(cache, old)
        await old.waitUntilSent(1)
        cache.keep(Self.record(owner: "bob"), for: Self.key)
        // A reader now gets the write's record, not the GET still in flight.
        #expect(try await Self.current(cache, old)?.metadata.owner == "bob")
        old.release()
        #expect(try await read?.metadata.owner == "alice")
        #expect(cache.fresh(Self.key)?.metadata.owner == "bob")
        // The same for a forget (a delete, or a blob found gone): the GET that was in flight does not land.
        time.advance(by: 61)
        let again = HeldFetch(answer: Self.record(owner: "carol"))
        async let late = Self.current(cache, again)
        await again.waitUntilSent(1)
        cache.forget(Self.key)
        again.release()
        #expect(try await late?.metadata.owner == "carol")
        #expect(cache.fresh(Self.key) == nil)
    }

    @Test("a failed record GET fails every reader that shared it, and the next read sends another")
    func sharedFailure() async throws {
        struct Refused: Error {}
        let cache = S3RecordCache(staleness: .seconds(1), capacity: 10, now: { Date() })
        let calls = Atomic<Int>(0)
        await #expect(throws: Refused.self) {
            try await cache.read(Self.key) {
                calls.add(1, ordering: .relaxed)
                throw Refused()
            }
        }
        let record = try await cache.read(Self.key) {
            calls.add(1, ordering: .relaxed)
            return Self.record(owner: "alice")
        }
        #expect(record?.metadata.owner == "alice")
        #expect(calls.load(ordering: .relaxed) == 2)
    }

    @Test("with the cache off every read sends its own GET and nothing is kept")
    func off() async throws {
        let cache = S3RecordCache(staleness: .zero, capacity: 10, now: { Date() })
        let fetch = HeldFetch(answer: Self.record(owner: "alice"))
        fetch.release()
        for _ in 0..<3 { #expect(try await Self.current(cache, fetch)?.metadata.owner == "alice") }
        #expect(fetch.sent == 3)
        #expect(cache.fresh(Self.key) == nil)
    }
}
