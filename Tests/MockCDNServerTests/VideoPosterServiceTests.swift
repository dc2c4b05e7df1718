import Foundation
import Logging
import MockCDNCore
import NIOCore
import Testing

@testable import MockCDNServer

/// `storePoster(for:key:)` and `deletePoster(of:)` on the services a server runs on (in-memory store): the
/// poster's key, type, dimensions and links, and what is left behind when something goes wrong.
@Suite("Video poster service", .serialized)
struct VideoPosterServiceTests {
    static func services() async throws -> ServerServices {
        try await makeServices(ServerConfiguration(logLevel: .warning), logger: Logger(label: "test"))
    }

    /// Stores `bytes` as an upload of the demo app would be stored.
    @discardableResult
    static func store(
        _ bytes: Data,
        name: String,
        type: String,
        in services: ServerServices
    ) async throws -> (ObjectMetadata, ObjectKey) {
        let key = try ObjectKey("demo/attachments/\(UUID().uuidString.lowercased())/\(name)")
        let object = try await services.store.put(
            key,
            body: AsyncStream { stream in
                stream.yield(ByteBuffer(bytes: bytes))
                stream.finish()
            },
            attributes: ObjectAttributes(
                contentType: type,
                owner: "alice",
                extras: ["channel": "messaging:general", "original_name": name]
            ),
            maxBytes: bytes.count
        )
        return (object, key)
    }

    static func video(_ name: String) throws -> Data { try Data(contentsOf: Fixture.url("media/\(name)")) }

    /// The temporary folders of `posters` that are still there: its own only, since other tests and processes
    /// make posters at the same time.
    static func leftFolders(of posters: VideoPosters) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.hasPrefix(posters.temporaryPrefix) }
    }

    @Test(
        "a stored video gets a poster at {app}/thumbnails/{uuid}/{name}.jpg, linked both ways",
        arguments: [("clip.mp4", "video/mp4"), ("clip.mov", "video/quicktime"), ("clip.webm", "video/webm")]
    )
    func poster(name: String, type: String) async throws {
        let services = try await Self.services()
        let (video, key) = try await Self.store(
            try Self.video("sample." + name.split(separator: ".").last!),
            name: name,
            type: type,
            in: services
        )
        let poster = try #require(await services.posters.storePoster(for: video, key: key))
        let parts = poster.key.split(separator: "/").map(String.init)
        #expect(parts.count == 4 && parts[0] == "demo" && parts[1] == "thumbnails" && parts[3] == name + ".jpg")
        #expect(UUID(uuidString: parts[2]) != nil)
        #expect(poster.contentType == "image/jpeg" && poster.owner == "alice")
        #expect(poster.extras["width"] == "160" && poster.extras["height"] == "120" && poster.extras["frames"] == "1")
        #expect(poster.extras["poster_of"] == key.rawValue && poster.extras["channel"] == nil)
        let bytes = try await services.store.collect(try ObjectKey(poster.key))
        #expect(try Vips.probe(bytes) == ImageHeader(width: 160, height: 120, frames: 1, format: .jpeg))
        let updated = try #require(try await services.store.metadata(for: key))
        #expect(updated.extras["poster"] == poster.key)
        #expect(try Self.leftFolders(of: services.posters).isEmpty)

        await services.posters.deletePoster(of: updated)
        #expect(try await services.store.metadata(for: try ObjectKey(poster.key)) == nil)
        #expect(try await services.store.metadata(for: key) != nil)
    }

    @Test("an undecodable video, or a type posters are not made for, gets none and keeps nothing extra")
    func noPoster() async throws {
        let services = try await Self.services()
        let text = Data("a text file uploaded as a video\n".utf8)
        for (bytes, name, type) in [
            (text, "fake.mp4", "video/mp4"), (text, "fake.webm", "video/webm"),
            (try Self.video("sample.webm"), "clip.webm", "video/quicktime"),
            (try Self.video("sample.mp4"), "clip.mp4", "application/octet-stream"),
        ] {
            let (video, key) = try await Self.store(bytes, name: name, type: type, in: services)
            #expect(await services.posters.storePoster(for: video, key: key) == nil, "\(name) as \(type)")
            #expect(try await services.store.metadata(for: key)?.extras["poster"] == nil, "\(name) as \(type)")
        }
        #expect(try await services.store.list(prefix: "demo/thumbnails/").isEmpty)
        #expect(try Self.leftFolders(of: services.posters).isEmpty)
    }

    @Test("a second poster replaces the first, which is deleted")
    func replaced() async throws {
        let services = try await Self.services()
        let (video, key) = try await Self.store(
            try Self.video("sample.mp4"),
            name: "a.mp4",
            type: "video/mp4",
            in: services
        )
        let first = try #require(await services.posters.storePoster(for: video, key: key))
        let second = try #require(await services.posters.storePoster(for: video, key: key))
        #expect(first.key != second.key)
        #expect(try await services.store.list(prefix: "demo/thumbnails/").map(\.key) == [second.key])
        #expect(try await services.store.metadata(for: key)?.extras["poster"] == second.key)
    }

    @Test("deletePoster deletes only an object that is this video's poster")
    func deleteChecksTheLink() async throws {
        let services = try await Self.services()
        let (video, key) = try await Self.store(
            try Self.video("sample.mp4"),
            name: "v.mp4",
            type: "video/mp4",
            in: services
        )
        let (other, otherKey) = try await Self.store(
            Data("keep me".utf8),
            name: "o.txt",
            type: "text/plain",
            in: services
        )
        let (second, secondKey) = try await Self.store(
            try Self.video("sample.mp4"),
            name: "w.mp4",
            type: "video/mp4",
            in: services
        )
        let poster = try #require(await services.posters.storePoster(for: second, key: secondKey))

        var forged = video
        forged.extras["poster"] = other.key
        await services.posters.deletePoster(of: forged)
        #expect(try await services.store.metadata(for: otherKey) != nil)
        // Another video's poster is not this video's.
        forged.extras["poster"] = poster.key
        await services.posters.deletePoster(of: forged)
        #expect(try await services.store.metadata(for: try ObjectKey(poster.key)) != nil)
        await services.posters.deletePoster(of: video)
        #expect(try await services.store.metadata(for: key) != nil)
    }

    @Test("a video deleted while its poster is made gets no poster, and none is kept")
    func videoDeletedMeanwhile() async throws {
        let services = try await Self.services()
        let store = HookedStore(MemoryObjectStore())
        let hooked = services.replacingStore(store)
        let (video, key) = try await Self.store(
            try Self.video("sample.mp4"),
            name: "v.mp4",
            type: "video/mp4",
            in: hooked
        )
        store.afterRead = { _ = try? await store.delete(key) }
        #expect(await hooked.posters.storePoster(for: video, key: key) == nil)
        #expect(try await store.list(prefix: "demo/thumbnails/").isEmpty)
    }

    @Test("a reset while a poster is made keeps no poster")
    func resetMeanwhile() async throws {
        let services = try await Self.services()
        let store = HookedStore(MemoryObjectStore())
        let hooked = services.replacingStore(store)
        let (video, key) = try await Self.store(
            try Self.video("sample.mp4"),
            name: "v.mp4",
            type: "video/mp4",
            in: hooked
        )
        store.afterRead = { hooked.epoch.advance() }
        #expect(await hooked.posters.storePoster(for: video, key: key) == nil)
        #expect(try await store.list(prefix: "demo/thumbnails/").isEmpty)
    }
}

extension ServerServices {
    /// The same services over another store.
    fileprivate func replacingStore(_ store: any ObjectStore) -> ServerServices {
        ServerServices(
            apps: self.apps,
            store: store,
            events: self.events,
            vendorHooks: self.vendorHooks,
            streamHooks: self.streamHooks,
            cometChatHooks: self.cometChatHooks,
            clock: self.clock,
            state: self.state,
            links: self.links,
            variants: self.variants,
            journal: self.journal,
            faults: self.faults,
            metrics: self.metrics,
            fixtures: self.fixtures,
            verifiedCredentials: self.verifiedCredentials,
            idleTimeoutSeconds: self.idleTimeoutSeconds
        )
    }
}

/// A store that runs a hook once a whole-object read finished: the moment a poster's bytes were copied out.
private final class HookedStore: ObjectStore, @unchecked Sendable {
    let base: MemoryObjectStore
    /// Set once, before the read it watches starts.
    var afterRead: (@Sendable () async -> Void)?

    init(_ base: MemoryObjectStore) {
        self.base = base
    }

    func put<Body: AsyncSequence>(
        _ key: ObjectKey,
        body: Body,
        maxBytes: Int,
        digest: ObjectIntake.Digest,
        attributes: (ObjectIntake.Summary) async throws -> ObjectAttributes
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer {
        try await self.base.put(key, body: body, maxBytes: maxBytes, digest: digest, attributes: attributes)
    }

    func metadata(for key: ObjectKey) async throws -> ObjectMetadata? { try await self.base.metadata(for: key) }

    func read(_ key: ObjectKey, range: Range<Int>?, into consumer: (ByteBuffer) async throws -> Void) async throws {
        try await self.base.read(key, range: range, into: consumer)
        await self.afterRead?()
    }

    func updateMetadata(_ key: ObjectKey, _ change: (inout ObjectMetadata) -> Void) async throws -> ObjectMetadata {
        try await self.base.updateMetadata(key, change)
    }

    func delete(_ key: ObjectKey) async throws -> Bool { try await self.base.delete(key) }

    func list(prefix: String) async throws -> [ObjectMetadata] { try await self.base.list(prefix: prefix) }
}
