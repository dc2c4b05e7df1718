import MockCDNCore

/// The buckets created at run time, in the S3 store's bucket (`buckets.json` under the prefix, as
/// `S3Document` changes it), so that a bucket one instance creates, every instance on the store serves.
public final class S3BucketDirectory: BucketDirectory {
    let document: S3Document<[BucketRecord]>

    public init(client: S3Client) {
        self.document = S3Document(
            client: client,
            key: client.location.prefix + "buckets.json",
            empty: [],
            name: "the created buckets"
        )
    }

    public var isShared: Bool { true }

    public func load() async throws -> [BucketRecord] {
        try await self.document.read().value
    }

    public func insert(_ record: BucketRecord) async throws -> BucketRecord? {
        try await self.document.change { records in
            if let kept = records.first(where: { $0.name == record.name }) { return kept }
            records.append(record)
            return nil
        }
    }

    public func remove(_ name: String) async throws {
        try await self.document.change { $0.removeAll { $0.name == name } }
    }

    public func removeAll() async throws {
        try await self.document.change { $0.removeAll() }
    }
}
