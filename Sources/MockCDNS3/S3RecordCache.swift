import Foundation
import MockCDNCore
import Synchronization

/// The records (`meta/KEY`) an S3 store read lately, trusted for `staleness` on its clock, so that a read of
/// an object seen recently is one request to the bucket (its blob's GET) instead of two.
///
/// What it may get wrong, for at most `staleness` after another instance on the same bucket changed an
/// object, are answers made from the record alone: a HEAD, a 304 or 412, and metadata another instance
/// changed without new bytes. Bytes never come from it: a blob is written once under a fresh name and deleted
/// when its object is deleted or replaced, so a read whose blob is gone drops the entry and reads the record
/// again. The store's own writes and deletes update it at once. At most `capacity` entries: when full, the
/// expired ones go, then all of them.
///
/// A record that is not fresh is read once however many readers want it at the same time (`read(_:from:)`):
/// when an entry expires under load, every read arriving until the record's GET answers would otherwise send a
/// GET of its own (at 300 reads a second on moto_server, about one store request in seven was such a repeat).
/// An entry is dated when its GET was sent, not when it answered, so what it says is never older than
/// `staleness` when it is used, whoever sent the GET.
final class S3RecordCache: Sendable {
    struct Entry: Sendable {
        let record: S3ObjectStore.Record
        let read: Date
    }

    /// A record's GET in flight, shared by the readers that ask for it while it is.
    struct Flight: Sendable {
        let task: Task<S3ObjectStore.Record?, any Error>
        let sent: Date
        let id: UInt64
    }

    /// How long an entry is trusted; zero turns the cache off.
    let staleness: Duration
    /// The most entries kept.
    let capacity: Int
    /// The clock entries age by (the server's `MockClock`, so tests move it instead of waiting).
    let now: @Sendable () -> Date
    private let entries = Mutex<[ObjectKey: Entry]>([:])
    private let flights = Mutex<(next: UInt64, byKey: [ObjectKey: Flight])>((0, [:]))

    init(staleness: Duration, capacity: Int, now: @escaping @Sendable () -> Date) {
        self.staleness = staleness
        self.capacity = capacity
        self.now = now
    }

    private var seconds: TimeInterval {
        let (whole, fraction) = self.staleness.components
        return TimeInterval(whole) + TimeInterval(fraction) / 1e18
    }

    /// The record of `key` when one was read less than `staleness` ago (by the clock; a clock moved back
    /// before the read counts as expired).
    func fresh(_ key: ObjectKey) -> S3ObjectStore.Record? {
        guard self.staleness > .zero else { return nil }
        let now = self.now()
        return self.entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            let age = now.timeIntervalSince(entry.read)
            guard age >= 0, age < self.seconds else {
                entries[key] = nil
                return nil
            }
            return entry.record
        }
    }

    /// The record of `key` from the bucket, by `fetch`, or by the GET another reader sent for it less than
    /// `staleness` ago and that is still in flight; kept, dated when that GET was sent.
    ///
    /// - Parameters:
    ///   - key: the object.
    ///   - fetch: reads the record from the bucket (nil: no such object).
    /// - Returns: the record, or nil when there is none.
    /// - Throws: what `fetch` threw, to every reader that shared it.
    func read(
        _ key: ObjectKey,
        from fetch: @escaping @Sendable () async throws -> S3ObjectStore.Record?
    ) async throws -> S3ObjectStore.Record? {
        guard self.staleness > .zero else { return try await fetch() }
        let now = self.now()
        let trusted = self.seconds
        let task = self.flights.withLock { flights in
            if let flight = flights.byKey[key] {
                let age = now.timeIntervalSince(flight.sent)
                if age >= 0, age < trusted { return flight.task }
            }
            flights.next += 1
            let id = flights.next
            // Unstructured, so that a reader that goes away does not fail the others; the S3 client's time
            // limit bounds it.
            let task = Task {
                do {
                    let record = try await fetch()
                    self.land(key, id: id) { self.store(record, for: key, read: now) }
                    return record
                } catch {
                    self.land(key, id: id) {}
                    throw error
                }
            }
            flights.byKey[key] = Flight(task: task, sent: now, id: id)
            return task
        }
        return try await task.value
    }

    /// Ends flight `id` of `key`, running `keep` (under the flights' lock) only if a write, a delete or a
    /// `forget` since it was sent has not replaced it: what such a GET read may be older than what they left.
    private func land(_ key: ObjectKey, id: UInt64, _ keep: () -> Void) {
        self.flights.withLock { flights in
            guard flights.byKey[key]?.id == id else { return }
            flights.byKey[key] = nil
            keep()
        }
    }

    /// Keeps `record` as read now (the store's own writes); nil forgets the key (no such object is never
    /// cached). A record GET in flight for the key no longer lands.
    func keep(_ record: S3ObjectStore.Record?, for key: ObjectKey) {
        guard self.staleness > .zero else { return }
        self.flights.withLock { flights in
            flights.byKey[key] = nil
            self.store(record, for: key, read: self.now())
        }
    }

    private func store(_ record: S3ObjectStore.Record?, for key: ObjectKey, read now: Date) {
        let trusted = self.seconds
        self.entries.withLock { entries in
            guard let record else {
                entries[key] = nil
                return
            }
            if entries[key] == nil, entries.count >= self.capacity {
                entries = entries.filter { _, entry in
                    let age = now.timeIntervalSince(entry.read)
                    return age >= 0 && age < trusted
                }
                if entries.count >= self.capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[key] = Entry(record: record, read: now)
        }
    }

    /// Forgets `key`, and any record GET in flight for it.
    func forget(_ key: ObjectKey) {
        self.flights.withLock { flights in
            flights.byKey[key] = nil
            self.entries.withLock { $0[key] = nil }
        }
    }

    /// Forgets everything (a reset), flights included.
    func forgetAll() {
        self.flights.withLock { flights in
            flights.byKey.removeAll()
            self.entries.withLock { $0.removeAll() }
        }
    }
}
