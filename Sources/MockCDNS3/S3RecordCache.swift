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
final class S3RecordCache: Sendable {
    struct Entry: Sendable {
        let record: S3ObjectStore.Record
        let read: Date
    }

    /// How long an entry is trusted; zero turns the cache off.
    let staleness: Duration
    /// The most entries kept.
    let capacity: Int
    /// The clock entries age by (the server's `MockClock`, so tests move it instead of waiting).
    let now: @Sendable () -> Date
    private let entries = Mutex<[ObjectKey: Entry]>([:])

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

    /// Keeps `record` as read now; nil forgets the key (no such object is never cached).
    func keep(_ record: S3ObjectStore.Record?, for key: ObjectKey) {
        guard self.staleness > .zero else { return }
        let now = self.now()
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

    /// Forgets `key`.
    func forget(_ key: ObjectKey) {
        self.entries.withLock { $0[key] = nil }
    }

    /// Forgets everything (a reset).
    func forgetAll() {
        self.entries.withLock { $0.removeAll() }
    }
}
