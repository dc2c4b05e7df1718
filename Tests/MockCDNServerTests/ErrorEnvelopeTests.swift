import Foundation
import MockCDNCore
import NIOCore
import Synchronization
import Testing

@testable import MockCDNServer

/// A store that fails on purpose: an arbitrary error on puts and lookups of keys holding `boom`, a disk that
/// fills up midway through a body, and an object that vanishes while it is being read.
struct SabotagedStore: ObjectStore {
    /// No API knows this error: it must still reach the client in the route's envelope.
    struct Sabotage: Error {}

    let base: any ObjectStore
    /// The body of an upload named `full` stops with "disk full" after this many bytes.
    static let fullAfter = 1000

    func put<Body: AsyncSequence>(
        _ key: ObjectKey,
        body: Body,
        maxBytes: Int,
        digest: ObjectIntake.Digest,
        attributes: (ObjectIntake.Summary) async throws -> ObjectAttributes
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer {
        if key.rawValue.contains("boom") { throw Sabotage() }
        guard key.rawValue.hasSuffix("/full.bin") else {
            return try await self.base.put(key, body: body, maxBytes: maxBytes, digest: digest, attributes: attributes)
        }
        return try await self.base.put(
            key,
            body: FillingBody(base: body),
            maxBytes: maxBytes,
            digest: digest,
            attributes: attributes
        )
    }

    func metadata(for key: ObjectKey) async throws -> ObjectMetadata? {
        if key.rawValue.contains("boom") { throw Sabotage() }
        return try await self.base.metadata(for: key)
    }

    func read(_ key: ObjectKey, range: Range<Int>?, into consumer: (ByteBuffer) async throws -> Void) async throws {
        // Deleted between its lookup and its read, as when a delete races a resize.
        if key.rawValue.hasSuffix("/vanish.png") { try await self.base.delete(key) }
        try await self.base.read(key, range: range, into: consumer)
    }

    func updateMetadata(_ key: ObjectKey, _ change: (inout ObjectMetadata) -> Void) async throws -> ObjectMetadata {
        try await self.base.updateMetadata(key, change)
    }

    func delete(_ key: ObjectKey) async throws -> Bool { try await self.base.delete(key) }

    func list(prefix: String) async throws -> [ObjectMetadata] {
        let objects = try await self.base.list(prefix: prefix)
        if objects.contains(where: { $0.key.hasSuffix("/poison.txt") }) { throw Sabotage() }
        return objects
    }

    /// A body whose disk fills up after `fullAfter` bytes.
    struct FillingBody<Base: AsyncSequence>: AsyncSequence where Base.Element == ByteBuffer {
        typealias Element = ByteBuffer
        let base: Base

        struct AsyncIterator: AsyncIteratorProtocol {
            var base: Base.AsyncIterator
            var seen = 0

            mutating func next() async throws -> ByteBuffer? {
                guard let chunk = try await self.base.next() else { return nil }
                self.seen += chunk.readableBytes
                if self.seen > SabotagedStore.fullAfter { throw MockCDNError.insufficientStorage("disk full") }
                return chunk
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: self.base.makeAsyncIterator()) }
    }
}

@Suite("One error path: every group answers any failure in its own envelope")
struct ErrorEnvelopeTests {
    static let fat: String = {
        let now = Int64(Date().timeIntervalSince1970)
        let claims = FileAccessClaims(appID: "demo", userID: "alice", issuedAt: now, expiresAt: now + 3600)
        return FileAccessToken.issue(claims, key: HMACKey(AppConfiguration.demo.apiSecret))
    }()

    static func run(_ body: @Sendable (DiskServer) async throws -> Void) async throws {
        let sabotage: @Sendable (any ObjectStore) -> any ObjectStore = { SabotagedStore(base: $0) }
        try await DiskServer.run(storeWrapper: sabotage) { server in try await body(server) }
    }

    @Test("Stream: an unknown error from the store is Stream's JSON with code -1, and nothing is kept")
    func stream() async throws {
        try await Self.run { server in
            let reply = try await server.upload(
                "/channels/messaging/general/file",
                parts: [.file(Media.text, name: "boom.txt", type: "text/plain")]
            )
            #expect(reply.status == 500)
            #expect(reply.streamCode == -1)
            #expect(reply.json["StatusCode"] as? Int == 500 && reply.json["details"] != nil)
            #expect(try server.storedCount() == 0)
            #expect(try server.temporaryCount() == 0)
        }
    }

    @Test("disk full midway through an upload: 507 in the route's envelope, nothing stored, no temp file")
    func diskFull() async throws {
        try await Self.run { server in
            let big = Data(repeating: 7, count: 64 * 1024)
            let stream = try await server.upload(
                "/channels/messaging/general/file",
                parts: [.file(big, name: "full.bin", type: "application/octet-stream")]
            )
            #expect(stream.status == 507)
            #expect(stream.streamCode == -1)
            #expect(stream.json["message"] as? String == "disk full")
            let fat = Self.fat
            let cometChat = try await HTTP.send(
                "POST",
                server.url("/demo/media"),
                headers: ["fat": fat, "Content-Type": Multipart.contentType],
                body: Multipart.body([.file(big, name: "full.bin", type: "application/octet-stream")])
            )
            #expect(cometChat.status == 507)
            #expect((cometChat.json["error"] as? [String: Any])?["code"] as? String == "ERR_UNAVAILABLE")
            #expect(try server.storedCount() == 0)
            #expect(try server.temporaryCount() == 0)
        }
    }

    @Test("media reads: an unknown error is S3 XML InternalError; an object gone during its resize is NoSuchKey")
    func media() async throws {
        try await Self.run { server in
            let fat = Self.fat
            let broken = try await HTTP.get(server.url("/demo/attachments/x/boom.txt"), headers: ["fat": fat])
            #expect(broken.status == 500)
            #expect(broken.header("Content-Type") == "application/xml")
            #expect(broken.xmlError?.code == "InternalError")

            let upload = try await server.upload(parts: [.file(Media.png, name: "vanish.png", type: "image/png")])
            let link = try #require(upload.json["file"] as? String)
            let resized = try await HTTP.get(link + "&w=10")
            #expect(resized.status == 404)
            #expect(resized.xmlError?.code == "NoSuchKey")
            #expect(try await HTTP.get(link).status == 404)
        }
    }

    @Test("CometChat: an unknown error from the store is CometChat's JSON, ERR_INTERNAL")
    func cometChat() async throws {
        try await Self.run { server in
            let reply = try await HTTP.send(
                "POST",
                server.url("/demo/media"),
                headers: ["fat": Self.fat, "Content-Type": Multipart.contentType],
                body: Multipart.body([.file(Media.text, name: "boom.txt", type: "text/plain")])
            )
            #expect(reply.status == 500)
            #expect((reply.json["error"] as? [String: Any])?["code"] as? String == "ERR_INTERNAL")
            #expect(try server.storedCount() == 0)
        }
    }

    @Test("control routes: an unknown error is their JSON, not a bare 500")
    func control() async throws {
        try await Self.run { server in
            _ = try await server.upload(
                "/channels/messaging/general/file",
                parts: [.file(Media.text, name: "poison.txt", type: "text/plain")]
            )
            // A reset lists the store to empty it; the sabotaged list throws.
            let reply = try await HTTP.send(
                "POST",
                server.url("/_mockcdn/reset"),
                headers: ["Content-Type": "application/json"]
            )
            #expect(reply.status == 500)
            #expect((reply.json["error"] as? [String: Any])?["message"] as? String == "internal error")
        }
    }
}

/// Counts the metadata writes an upload makes.
struct CountingStore: ObjectStore {
    let base: any ObjectStore
    let writes = WriteCount()

    final class WriteCount: Sendable {
        private let count = Mutex(0)
        func add() { self.count.withLock { $0 += 1 } }
        var value: Int { self.count.withLock { $0 } }
    }

    func put<Body: AsyncSequence>(
        _ key: ObjectKey,
        body: Body,
        maxBytes: Int,
        digest: ObjectIntake.Digest,
        attributes: (ObjectIntake.Summary) async throws -> ObjectAttributes
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer {
        let stored = try await self.base.put(
            key,
            body: body,
            maxBytes: maxBytes,
            digest: digest,
            attributes: attributes
        )
        self.writes.add()
        return stored
    }

    func metadata(for key: ObjectKey) async throws -> ObjectMetadata? { try await self.base.metadata(for: key) }

    func read(_ key: ObjectKey, range: Range<Int>?, into consumer: (ByteBuffer) async throws -> Void) async throws {
        try await self.base.read(key, range: range, into: consumer)
    }

    func updateMetadata(_ key: ObjectKey, _ change: (inout ObjectMetadata) -> Void) async throws -> ObjectMetadata {
        self.writes.add()
        return try await self.base.updateMetadata(key, change)
    }

    func delete(_ key: ObjectKey) async throws -> Bool { try await self.base.delete(key) }

    func list(prefix: String) async throws -> [ObjectMetadata] { try await self.base.list(prefix: prefix) }
}

@Suite("Uploads write their metadata once")
struct UploadWritesOnceTests {
    @Test(
        "an image by a user, and one a server token names the user of: dimensions and owner committed together",
        arguments: [false, true]
    )
    func once(_ serverToken: Bool) async throws {
        let counting = Mutex<CountingStore?>(nil)
        let wrap: @Sendable (any ObjectStore) -> any ObjectStore = { base in
            let store = CountingStore(base: base)
            counting.withLock { $0 = store }
            return store
        }
        try await DiskServer.run(storeWrapper: wrap) { server in
            let store = try #require(counting.withLock { $0 })
            let before = store.writes.value
            let reply = try await server.upload(
                token: serverToken ? Tokens.server : Tokens.user("alice"),
                parts: (serverToken ? [.field("user", #"{"id":"alice"}"#)] : []) + [.file(Media.png, type: "image/png")]
            )
            #expect(reply.status == 201)
            #expect(store.writes.value - before == 1)
            let listing = try await HTTP.get(
                server.url("/channels/messaging/general/uploads?api_key=demo-key"),
                headers: Tokens.headers(Tokens.server)
            )
            let entry = try #require((listing.json["uploads"] as? [[String: Any]])?.first)
            #expect(entry["user_id"] as? String == "alice")
            #expect(
                (entry["file"] as? String)?.hasSuffix("&oh=\(Media.pngSize.height)&ow=\(Media.pngSize.width)") == true
            )
        }
    }

    @Test("preloaded fixtures are written once each, dimensions included")
    func fixtures() async throws {
        let counting = Mutex<CountingStore?>(nil)
        let wrap: @Sendable (any ObjectStore) -> any ObjectStore = { base in
            let store = CountingStore(base: base)
            counting.withLock { $0 = store }
            return store
        }
        try await DiskServer.run(fixtures: Fixture.url("media").path, storeWrapper: wrap) { server in
            let store = try #require(counting.withLock { $0 })
            let stored = try server.storedCount()
            #expect(stored > 3)
            #expect(store.writes.value == stored)
        }
    }
}
