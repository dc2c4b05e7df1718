import Foundation
import MockCDNCore
import MockCDNS3
import NIOCore
import Synchronization
import Testing

/// What only the S3 store does: multipart uploads (aborted when a write fails), records as the commit point,
/// another instance's view of the same bucket, and an unreachable endpoint.
@Suite("S3 object store", .enabled(if: MotoServer.enabled))
struct S3ObjectStoreTests {
    static let attributes = ObjectAttributes(contentType: "application/octet-stream", owner: "alice")

    static func body(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) } }

    @Test("a body larger than one part goes up in parts and reads back whole and by range")
    func multipart() async throws {
        let client = try await MotoServer.bucket()
        let store = S3ObjectStore(client: client, partSize: 5 << 20)
        let body = Self.body(12 << 20 + 1)
        let key = try ObjectKey("media/big.bin")
        let metadata = try await store.put(
            key,
            body: ObjectStoreTests.chunks(body, size: 256 * 1024),
            attributes: Self.attributes,
            maxBytes: 20 << 20
        )
        #expect(metadata.size == body.count)
        #expect(metadata.sha256 == Digest.sha256(body).hexString)
        #expect(try await store.collect(key) == ByteBuffer(bytes: body))
        let range = (5 << 20 - 3)..<(5 << 20 + 5)
        #expect(try await store.collect(key, range: range) == ByteBuffer(bytes: body[range]))
        #expect(try await client.incompleteUploads(prefix: "").isEmpty)
    }

    @Test("past the limit, or a body that fails, mid-multipart: the upload is aborted and nothing is visible")
    func abortedMultipart() async throws {
        let client = try await MotoServer.bucket()
        let store = S3ObjectStore(client: client, partSize: 5 << 20)
        let key = try ObjectKey("media/aborted.bin")
        await #expect(throws: MockCDNError.objectTooLarge) {
            try await store.put(
                key,
                body: ObjectStoreTests.chunks(Self.body(11 << 20), size: 512 * 1024),
                attributes: Self.attributes,
                maxBytes: 10 << 20
            )
        }
        await #expect(throws: ObjectStoreTests.ExplodingBody.self) {
            try await store.put(
                key,
                body: ObjectStoreTests.chunks(Self.body(11 << 20), size: 1 << 20, failAfter: 7),
                attributes: Self.attributes,
                maxBytes: 20 << 20
            )
        }
        #expect(try await store.metadata(for: key) == nil)
        #expect(try await client.listKeys(prefix: "").isEmpty)
        #expect(try await client.incompleteUploads(prefix: "").isEmpty)
    }

    /// A clock that moves only when told, for the records' staleness bound.
    final class ManualTime: Sendable {
        private let current = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
        var now: Date { self.current.withLock { $0 } }
        func advance(by seconds: TimeInterval) { self.current.withLock { $0 += seconds } }
    }

    @Test("a second store on the same bucket sees writes and deletes at once, metadata changes within the bound")
    func twoInstances() async throws {
        let client = try await MotoServer.bucket(prefix: "shared/")
        let time = ManualTime()
        let first = S3ObjectStore(client: client, metadataStaleness: .seconds(1), now: { time.now })
        let second = S3ObjectStore(client: S3Client(location: client.location), metadataStaleness: .zero)
        let key = try ObjectKey("attachments/1/a.txt")
        let written = try await first.put(
            key,
            body: ObjectStoreTests.chunks(Array("shared bytes".utf8), size: 4),
            attributes: Self.attributes,
            maxBytes: 100
        )
        #expect(try await second.metadata(for: key) == written)
        #expect(try await second.collect(key) == ByteBuffer(string: "shared bytes"))
        try await second.updateMetadata(key) { $0.owner = "bob" }
        // The first trusts the record its write left for a second of its clock, then reads the bucket's.
        #expect(try await first.metadata(for: key)?.owner == "alice")
        time.advance(by: 0.999)
        #expect(try await first.metadata(for: key)?.owner == "alice")
        time.advance(by: 0.001)
        #expect(try await first.metadata(for: key)?.owner == "bob")
        // A clock moved back does not make a record fresh for longer.
        time.advance(by: -10)
        try await second.updateMetadata(key) { $0.owner = "carol" }
        #expect(try await first.metadata(for: key)?.owner == "carol")
        #expect(try await second.list(prefix: "attachments/").map(\.key) == ["attachments/1/a.txt"])

        // Replaced by the second: the first's fresh record names a blob that is gone, so its read fails as a
        // missing object (a server reads again) and forgets the record; the next read has the new bytes.
        let replaced = try await second.put(
            key,
            body: ObjectStoreTests.chunks(Array("new bytes".utf8), size: 4),
            attributes: Self.attributes,
            maxBytes: 100
        )
        #expect(try await first.metadata(for: key)?.etag == written.etag)
        await #expect(throws: MockCDNError.objectNotFound) { try await first.collect(key) }
        #expect(try await first.metadata(for: key) == replaced)
        #expect(try await first.collect(key) == ByteBuffer(string: "new bytes"))

        // Deleted by the second: bytes are never served from the record.
        #expect(try await second.delete(key))
        await #expect(throws: MockCDNError.objectNotFound) { try await first.collect(key) }
        #expect(try await first.metadata(for: key) == nil)
        try await first.removeAll()
        #expect(try await client.listKeys(prefix: "").isEmpty)
    }

    @Test("the store's own writes and deletes update its records at once, whatever the bound")
    func ownWrites() async throws {
        let client = try await MotoServer.bucket(prefix: "own/")
        let store = S3ObjectStore(client: client, metadataStaleness: .seconds(60), recordCapacity: 1)
        let key = try ObjectKey("attachments/1/b.txt")
        let other = try ObjectKey("attachments/1/c.txt")
        for (text, owner) in [("one", "alice"), ("two", "bob")] {
            try await store.put(
                key,
                body: ObjectStoreTests.chunks(Array(text.utf8), size: 2),
                attributes: ObjectAttributes(contentType: "text/plain", owner: owner),
                maxBytes: 100
            )
            #expect(try await store.metadata(for: key)?.owner == owner)
            #expect(try await store.collect(key) == ByteBuffer(string: text))
        }
        try await store.updateMetadata(key) { $0.owner = "carol" }
        #expect(try await store.metadata(for: key)?.owner == "carol")
        // One record at most: another key's takes its place, and both still read right.
        try await store.put(
            other,
            body: ObjectStoreTests.chunks(Array("three".utf8), size: 2),
            attributes: Self.attributes,
            maxBytes: 100
        )
        #expect(try await store.collect(other) == ByteBuffer(string: "three"))
        #expect(try await store.collect(key) == ByteBuffer(string: "two"))
        #expect(try await store.delete(key))
        #expect(try await store.metadata(for: key) == nil)
        try await store.removeAll()
        #expect(try await store.metadata(for: other) == nil)
    }

    @Test("an endpoint that does not answer is a storage failure within the time limit, not a hang")
    func unreachable() async throws {
        let port = try MotoServer.freePort()
        let location = try S3Location(
            "s3://nowhere",
            environment: [
                "AWS_ENDPOINT_URL": "http://127.0.0.1:\(port)", "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s",
            ]
        )
        let store = S3ObjectStore(
            client: S3Client(location: location, timeout: .seconds(2))
        )
        let key = try ObjectKey("a")
        await #expect(throws: MockCDNError.storageFailure("")) { try await store.metadata(for: key) }
        await #expect(throws: MockCDNError.storageFailure("")) {
            try await store.put(
                key,
                body: ObjectStoreTests.chunks([1], size: 1),
                attributes: Self.attributes,
                maxBytes: 10
            )
        }
    }

    @Test(
        "store locations: bucket rules, prefix, endpoint, credentials and addressing from the environment",
        arguments: [
            ("s3://my-bucket", true), ("s3://my-bucket/team/a", true), ("s3://My_Bucket", false), ("s3://ab", false),
            ("https://x", false), ("s3://b-/x", false), ("s3://bucket/../up", false),
        ]
    )
    func locations(url: String, valid: Bool) {
        let environment = ["AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"]
        #expect(((try? S3Location(url, environment: environment)) != nil) == valid)
    }

    @Test("AWS itself is virtual-hosted in the region; a custom endpoint is path-style unless told otherwise")
    func addressing() throws {
        let aws = try S3Location(
            "s3://media/p",
            environment: ["AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s", "AWS_REGION": "eu-west-1"]
        )
        #expect(aws.endpoint == "https://s3.eu-west-1.amazonaws.com" && !aws.pathStyle && aws.prefix == "p/")
        let custom = try S3Location(
            "s3://media",
            environment: [
                "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s", "AWS_ENDPOINT_URL": "http://garage:3900/",
                "AWS_ENDPOINT_URL_S3": "http://seaweed:8333",
            ]
        )
        #expect(custom.endpoint == "http://seaweed:8333" && custom.pathStyle && custom.region == "us-east-1")
        #expect(throws: MockCDNError.invalidConfiguration("")) {
            try S3Location("s3://media", environment: ["AWS_ACCESS_KEY_ID": "k"])
        }
    }
}
