import Foundation
import MockCDNCore
import MockCDNS3
import NIOCore
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

    @Test("a second store on the same bucket sees writes, metadata changes and deletes at once")
    func twoInstances() async throws {
        let client = try await MotoServer.bucket(prefix: "shared/")
        let first = S3ObjectStore(client: client)
        let second = S3ObjectStore(client: S3Client(location: client.location))
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
        #expect(try await first.metadata(for: key)?.owner == "bob")
        #expect(try await second.list(prefix: "attachments/").map(\.key) == ["attachments/1/a.txt"])
        #expect(try await second.delete(key))
        #expect(try await first.metadata(for: key) == nil)
        await #expect(throws: MockCDNError.objectNotFound) { try await first.collect(key) }
        try await first.removeAll()
        #expect(try await client.listKeys(prefix: "").isEmpty)
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
