import Foundation
import MockCDNCore
import MockCDNS3
import Testing

/// The buckets CreateBucket makes, in each directory: memory, a file (the disk store's), and the S3 store's
/// bucket (moto_server, see `MotoServer`).
@Suite("Created buckets")
struct BucketRegistryTests {
    enum Kind: String, CaseIterable, Sendable {
        case memory, file, s3

        static var running: [Kind] { allCases.filter { $0 != .s3 || MotoServer.enabled } }
    }

    /// A directory of `kind`, and one more over the same file or bucket, as a second process would see it.
    static func directories(_ kind: Kind) async throws -> (any BucketDirectory, () throws -> any BucketDirectory) {
        switch kind {
        case .memory:
            let directory = try LocalBucketDirectory()
            return (directory, { directory })
        case .file:
            let file = try makeTemporaryDirectory().appendingPathComponent("buckets.json")
            return (try LocalBucketDirectory(file: file), { try LocalBucketDirectory(file: file) })
        case .s3:
            let client = try await MotoServer.bucket(prefix: "team/")
            return (S3BucketDirectory(client: client), { S3BucketDirectory(client: client) })
        }
    }

    static let demo = try! MediaApp(.demo)

    @Test("a bucket is the owner's keys under its own name; a second creation finds it", arguments: Kind.running)
    func create(kind: Kind) async throws {
        let (directory, another) = try await Self.directories(kind)
        let registry = BucketRegistry(directory: directory)
        let when = Date(timeIntervalSince1970: 1_800_000_000.7)
        guard case .created(let bucket) = try await registry.create("media", owner: Self.demo, at: when) else {
            Issue.record("not created")
            return
        }
        #expect(bucket.id == "media" && bucket.owner === Self.demo && bucket.account === Self.demo)
        #expect(bucket.sigV4Credentials.accessKeyID == Self.demo.sigV4Credentials.accessKeyID)
        #expect(bucket.sigV4Credentials.region == Self.demo.sigV4Credentials.region)
        #expect(bucket.activeKeyPair.id == Self.demo.activeKeyPair.id)
        #expect(bucket.created == Date(timeIntervalSince1970: 1_800_000_000), "whole seconds, as S3 lists it")
        #expect(registry.bucket(named: "media") === bucket)
        guard case .exists(let owner) = try await registry.create("media", owner: Self.demo, at: when) else {
            Issue.record("created twice")
            return
        }
        #expect(owner == "demo")
        // Another process on the same directory (or this one, restarted on the same file) sees it once it reads
        // the directory.
        let second = BucketRegistry(directory: try another())
        #expect(second.bucket(named: "media") == nil)
        try await second.refresh { $0 == "demo" ? Self.demo : nil }
        #expect(second.bucket(named: "media")?.owner === Self.demo)
        #expect(second.buckets(of: Self.demo).map(\.id) == ["media"])
        // A delete by the other is seen here where the directory is one (memory) or shared (the S3 store's); a
        // file is one process's, read again only at its next start.
        guard kind != .file else { return }
        try await second.delete("media")
        try await registry.refresh { $0 == "demo" ? Self.demo : nil }
        #expect(registry.bucket(named: "media") == nil)
    }

    @Test("a reset forgets every bucket, in the directory too", arguments: Kind.running)
    func removeAll(kind: Kind) async throws {
        let (directory, another) = try await Self.directories(kind)
        let registry = BucketRegistry(directory: directory)
        for name in ["one", "two"] { _ = try await registry.create(name, owner: Self.demo, at: Date()) }
        try await registry.removeAll()
        #expect(registry.buckets(of: Self.demo).isEmpty)
        #expect(try await another().load().isEmpty)
    }

    @Test("a bucket's upload settings are its owner's, changed or not")
    func uploadSettings() async throws {
        let owner = try MediaApp(.demo)
        let bucket = MediaApp(bucket: "media", of: owner, created: Date())
        var config = owner.uploadConfig(.image)
        config.sizeLimit = 1234
        bucket.setUploadConfig(config, for: .image)
        #expect(owner.uploadConfig(.image).sizeLimit == 1234)
        #expect(bucket.uploadConfig(.image).sizeLimit == 1234)
    }

    @Test(
        "S3's bucket naming rules",
        arguments: [
            ("media", true), ("my.bucket-1", true), ("abc", true), (String(repeating: "a", count: 63), true),
            ("ab", false), (String(repeating: "a", count: 64), false), ("Upper", false), ("under_score", false),
            ("-lead", false), ("trail-", false), ("two..dots", false), ("192.168.5.4", false),
            ("xn--bucket", false), ("sthree-x", false), ("amzn-s3-demo-x", false), ("name-s3alias", false),
            ("name--ol-s3", false), ("name.mrap", false), ("name--x-s3", false), ("name--table-s3", false),
        ]
    )
    func names(name: String, valid: Bool) {
        #expect((BucketName.problem(name) == nil) == valid, "\(name)")
    }
}
