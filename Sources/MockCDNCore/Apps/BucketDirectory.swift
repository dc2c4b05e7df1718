import Foundation

/// A bucket created at run time (S3's CreateBucket): its name, the app whose keys created it, and when.
public struct BucketRecord: Codable, Sendable, Equatable {
    public var name: String
    /// The configured app the bucket belongs to.
    public var owner: String
    public var created: Date

    public init(name: String, owner: String, created: Date) {
        self.name = name
        self.owner = owner
        self.created = created
    }
}

/// Where the buckets created at run time are kept: in the process (the memory store), in the data directory
/// (the disk store, so they outlive a restart as their objects do), or in the S3 store's bucket, so every
/// instance on it sees the same.
public protocol BucketDirectory: Sendable {
    /// Whether another process may change it: a bucket name not known here is then looked up again.
    var isShared: Bool { get }

    /// Every bucket created.
    func load() async throws -> [BucketRecord]

    /// Keeps `record` unless a bucket of its name is already kept.
    ///
    /// - Returns: nil when `record` was kept, else the record that was there first.
    func insert(_ record: BucketRecord) async throws -> BucketRecord?

    /// Forgets the bucket named `name`, if kept.
    func remove(_ name: String) async throws

    /// Forgets every bucket (`/_mockcdn/reset`).
    func removeAll() async throws
}
