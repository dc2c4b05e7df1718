import Foundation
import Synchronization

/// The buckets created at run time (S3's CreateBucket), each an app of its own for S3, the CDN's reads and the
/// events (its id is the bucket's name) with the keys, region, upload policy and link signing of the
/// configured app whose keys created it (`MediaApp.owner`).
public final class BucketRegistry: Sendable {
    /// What a CreateBucket did.
    public enum Creation: Sendable {
        /// The bucket is new.
        case created(MediaApp)
        /// A bucket of that name is there, the app's own or another's.
        case exists(owner: String)
    }

    private let directory: any BucketDirectory
    private let known: Mutex<[String: MediaApp]> = Mutex([:])

    /// - Parameter directory: where the buckets are kept.
    public init(directory: any BucketDirectory) {
        self.directory = directory
    }

    /// Whether another process may create or delete buckets (the S3 store's directory).
    public var isShared: Bool { self.directory.isShared }

    /// The bucket named `name`, as known here.
    public func bucket(named name: String) -> MediaApp? {
        self.known.withLock { $0[name] }
    }

    /// The buckets `owner`'s keys created, by name.
    public func buckets(of owner: MediaApp) -> [MediaApp] {
        self.known.withLock { $0.values.filter { $0.owner === owner } }.sorted { $0.id < $1.id }
    }

    /// Reads the directory again: the buckets this and every other instance created, as they are now.
    ///
    /// - Parameter owners: the configured app of an owner's id; a bucket whose owner is no longer configured
    ///   is left out.
    public func refresh(owners: (String) -> MediaApp?) async throws {
        let records = try await self.directory.load()
        self.known.withLock { known in
            var fresh: [String: MediaApp] = [:]
            for record in records {
                guard let owner = owners(record.owner) else { continue }
                // The same bucket keeps its object, so that what holds it sees no change.
                if let kept = known[record.name], kept.owner === owner {
                    fresh[record.name] = kept
                } else {
                    fresh[record.name] = MediaApp(bucket: record.name, of: owner, created: record.created)
                }
            }
            known = fresh
        }
    }

    /// Creates the bucket `name` for `owner`, unless a bucket of that name is already kept.
    ///
    /// - Parameters:
    ///   - name: a name no configured app has (the caller checks).
    ///   - owner: the configured app whose keys asked.
    ///   - date: its creation time.
    /// - Returns: the new bucket, or the owner of the one already there.
    public func create(_ name: String, owner: MediaApp, at date: Date) async throws -> Creation {
        // Whole seconds, as S3 lists a bucket's creation.
        let date = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        if let kept = try await self.directory.insert(BucketRecord(name: name, owner: owner.id, created: date)) {
            return .exists(owner: kept.owner)
        }
        let bucket = MediaApp(bucket: name, of: owner, created: date)
        self.known.withLock { $0[name] = bucket }
        return .created(bucket)
    }

    /// Forgets the bucket named `name`.
    public func delete(_ name: String) async throws {
        try await self.directory.remove(name)
        _ = self.known.withLock { $0.removeValue(forKey: name) }
    }

    /// Forgets every created bucket (`/_mockcdn/reset`).
    public func removeAll() async throws {
        try await self.directory.removeAll()
        self.known.withLock { $0.removeAll() }
    }
}
