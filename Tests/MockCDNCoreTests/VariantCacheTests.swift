import Foundation
import NIOCore
import Synchronization
import Testing

@testable import MockCDNCore

/// The variant cache's disk copy: bounded in bytes, and never keeping what a delete dropped.
@Suite("VariantCache on disk")
struct VariantCacheTests {
    static func variant(_ text: String) -> ImageVariant {
        ImageVariant(bytes: ByteBuffer(string: text), contentType: "image/png")
    }

    /// Total bytes of the regular files directly in `folder`.
    static func bytesOnDisk(_ folder: URL) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).reduce(0) { total, name in
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            return total + ((attributes[.size] as? NSNumber)?.intValue ?? 0)
        }
    }

    @Test("variant files stay within the disk limit, least recently used evicted first")
    func diskLimit() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Each file is "image/png\n" (10 bytes) and 90 bytes of variant: 100 bytes, ten fit in 1,000.
        let cache = VariantCache(memoryLimit: 1 << 20, directory: folder.path, diskLimit: 1000)
        for index in 0..<40 {
            _ = try await cache.variant(.of("o/\(index)")) {
                Self.variant(String(repeating: "x", count: 90))
            }
            #expect(try Self.bytesOnDisk(folder) <= 1000)
        }
        #expect(try Self.bytesOnDisk(folder) == cache.diskBytes)
        #expect(cache.diskBytes > 500)

        // A new cache over the folder (a restart) finds the most recent variant on disk, and an old one gone.
        let restarted = VariantCache(memoryLimit: 1 << 20, directory: folder.path, diskLimit: 1000)
        let renders = Counter()
        _ = try await restarted.variant(.of("o/39")) {
            renders.increment()
            return Self.variant("again")
        }
        #expect(renders.value == 0)
        _ = try await restarted.variant(.of("o/0")) {
            renders.increment()
            return Self.variant("again")
        }
        #expect(renders.value == 1)
    }

    @Test("the disk limit defaults to the memory limit, and a smaller limit found at start-up trims the folder")
    func defaultsAndTrim() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(VariantCache(memoryLimit: 4096, directory: nil).diskLimit == 4096)
        let large = VariantCache(memoryLimit: 1 << 20, directory: folder.path)
        for index in 0..<10 {
            _ = try await large.variant(.of("o/\(index)", width: 150)) {
                Self.variant(String(repeating: "y", count: 90))
            }
        }
        #expect(try Self.bytesOnDisk(folder) == 1000)
        let small = VariantCache(memoryLimit: 1 << 20, directory: folder.path, diskLimit: 450)
        #expect(try Self.bytesOnDisk(folder) <= 450)
        #expect(small.diskBytes == (try Self.bytesOnDisk(folder)))
    }

    @Test("removeAll and drop remove the files too")
    func removal() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = VariantCache(memoryLimit: 1 << 20, directory: folder.path)
        for object in ["a", "b"] {
            for transform in [1, 2] {
                _ = try await cache.variant(.of(object, width: transform)) { Self.variant(object) }
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 4)
        await cache.drop(object: "a")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 2)
        await cache.removeAll()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        #expect(cache.diskBytes == 0)
    }

    @Test("a render that finishes after its object was dropped is returned to its caller but not kept")
    func dropWinsOverRender() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = VariantCache(memoryLimit: 1 << 20, directory: folder.path)
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseContinuation) = AsyncStream.makeStream(of: Void.self)
        let render = Task {
            try await cache.variant(.of("media/p.png", width: 10)) {
                startedContinuation.yield()
                for await _ in release { break }
                return Self.variant("stale")
            }
        }
        for await _ in started { break }
        await cache.drop(object: "media/p.png")
        releaseContinuation.yield()
        let stale = try await render.value
        #expect(String(buffer: stale.bytes) == "stale")

        #expect(cache.count == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        let renders = Counter()
        let fresh = try await cache.variant(.of("media/p.png", width: 10)) {
            renders.increment()
            return Self.variant("fresh")
        }
        #expect(renders.value == 1)
        #expect(String(buffer: fresh.bytes) == "fresh")
    }

    @Test("a lookup after a drop does not join the render the drop overtook", .timeLimit(.minutes(1)))
    func lookupAfterDropRendersAgain() async throws {
        let cache = VariantCache(memoryLimit: 1 << 20, directory: nil)
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseContinuation) = AsyncStream.makeStream(of: Void.self)
        let render = Task {
            try await cache.variant(.of("media/p.png", width: 10)) {
                startedContinuation.yield()
                for await _ in release { break }
                return Self.variant("stale")
            }
        }
        for await _ in started { break }
        await cache.drop(object: "media/p.png")
        let fresh = try await cache.variant(.of("media/p.png", width: 10)) {
            Self.variant("fresh")
        }
        #expect(String(buffer: fresh.bytes) == "fresh")
        releaseContinuation.yield()
        _ = try await render.value
        // The overtaken render finishing later does not replace the fresh variant.
        let again = try await cache.variant(.of("media/p.png", width: 10)) {
            Self.variant("rendered a third time")
        }
        #expect(String(buffer: again.bytes) == "fresh")
    }

    @Test("a key's crop counts only when its resize crops, as the transform's text spells it")
    func keyCrop() {
        func key(_ resize: ImageTransform.Resize, _ crop: ImageTransform.Crop) -> VariantCache.Key {
            VariantCache.Key(
                object: "o",
                etag: "e",
                transform: ImageTransform(width: 10, height: 10, resize: resize, crop: crop)
            )
        }
        #expect(key(.clip, .top) == key(.clip, .center))
        #expect(key(.fill, .left).text == key(.fill, .right).text)
        #expect(key(.crop, .top) != key(.crop, .center))
        #expect(key(.crop, .top).text == "o\ne\nw=10&h=10&resize=crop&crop=top")
        #expect(key(.clip, .top).text == "o\ne\nw=10&h=10&resize=clip")
    }

    @Test("recent finds a variant in memory without counting it; countHit counts; cached does both")
    func recentThenCount() async throws {
        let hits = Counter()
        let misses = Counter()
        let cache = VariantCache(memoryLimit: 1 << 20, directory: nil) { hit in
            if hit { hits.increment() } else { misses.increment() }
        }
        #expect(cache.recent(.of("o/a")) == nil)
        _ = try await cache.variant(.of("o/a")) { Self.variant("a") }
        #expect((hits.value, misses.value) == (0, 1))
        #expect(cache.recent(.of("o/a"))?.bytes == ByteBuffer(string: "a"))
        #expect(cache.recent(.of("o/a", etag: "other")) == nil)
        #expect(hits.value == 0)
        cache.countHit()
        #expect(cache.cached(.of("o/a"))?.bytes == ByteBuffer(string: "a"))
        #expect((hits.value, misses.value) == (2, 1))
    }

    @Test("when every request waiting for a render goes away, the render is cancelled", .timeLimit(.minutes(1)))
    func abandonedRenderIsCancelled() async throws {
        // Every step waits on an event, none on time: the second request's join (the cache's lookup hook),
        // the render's start, and its cancellation (a handler that runs within the `cancel()` that causes it).
        let (joined, join) = AsyncStream<Void>.makeStream()
        let joins = Counter()
        let cache = VariantCache(memoryLimit: 1 << 20, directory: nil) { hit in
            guard hit else { return }  // the first request's miss; a request that joins a render counts a hit
            joins.increment()
            join.yield()
        }
        let (cancelled, signal) = AsyncStream<Void>.makeStream()
        let (started, began) = AsyncStream<Void>.makeStream()
        let cancellations = Counter()
        let render: @Sendable () async throws -> ImageVariant = {
            try await withTaskCancellationHandler {
                began.yield()
                // Not a margin: the render ends only when it is cancelled (the time limit is a minute).
                try await Task.sleep(for: .seconds(600))
            } onCancel: {
                cancellations.increment()
                signal.yield()
            }
            return Self.variant("never")
        }
        let first = Task { try await cache.variant(.of("o/a"), render: render) }
        var iterator = started.makeAsyncIterator()
        _ = await iterator.next()
        let second = Task { try await cache.variant(.of("o/a"), render: render) }
        var joinEvents = joined.makeAsyncIterator()
        while joins.value < 1 { _ = await joinEvents.next() }  // the second request waits on the render
        // One of two waiters leaving keeps the render going for the other.
        first.cancel()
        #expect(cancellations.value == 0)
        second.cancel()
        var cancelledRenders = cancelled.makeAsyncIterator()
        _ = await cancelledRenders.next()
        #expect(cancellations.value == 1)
        await #expect(throws: CancellationError.self) { try await second.value }
        // Nothing half-made is kept, and the next request renders afresh.
        let fresh = try await cache.variant(.of("o/a")) { Self.variant("fresh") }
        #expect(fresh.bytes == ByteBuffer(string: "fresh"))
    }

    @Test("a variant file replaced by a symbolic link is not read: the variant is rendered again")
    func symlinkedVariantFile() async throws {
        let folder = try makeTemporaryDirectory()
        let outside = try makeTemporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: outside)
        }
        let first = VariantCache(memoryLimit: 1 << 20, directory: folder.path)
        _ = try await first.variant(.of("demo/a.png", width: 150)) { Self.variant("stored") }
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
        // Same length as the real file, so only the link can give it away.
        let secret = outside.appendingPathComponent("secret")
        try Data("image/png\nSECRET".utf8).write(to: secret)
        let file = folder.appendingPathComponent(name)
        #expect(try Data(contentsOf: file).count == Data("image/png\nSECRET".utf8).count)
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: secret)

        let second = VariantCache(memoryLimit: 1 << 20, directory: folder.path)
        let read = try await second.variant(.of("demo/a.png", width: 150)) {
            Self.variant("rendered")
        }
        #expect(String(buffer: read.bytes) == "rendered")
        #expect(try Data(contentsOf: secret) == Data("image/png\nSECRET".utf8))
    }

    /// A shared store in memory, as the S3 one behaves: names to stored forms.
    final class SharedStore: SharedVariantStore {
        let objects = Mutex<[String: ByteBuffer]>([:])
        var names: [String] { self.objects.withLock { Array($0.keys) } }
        func load(_ name: String) async -> ImageVariant? {
            self.objects.withLock { $0[name] }.flatMap { ImageVariant(stored: $0) }
        }
        func save(_ variant: ImageVariant, as name: String) async {
            self.objects.withLock { $0[name] = variant.stored }
        }
        func remove(namesStartingWith prefix: String) async {
            self.objects.withLock { objects in objects = objects.filter { !$0.key.hasPrefix(prefix) } }
        }
    }

    @Test("a variant one instance rendered serves another from the shared store; a drop removes it there too")
    func sharedStore() async throws {
        let shared = SharedStore()
        let a = VariantCache(memoryLimit: 1 << 20, directory: nil, shared: shared)
        let b = VariantCache(memoryLimit: 1 << 20, directory: nil, shared: shared)
        let renders = Counter()
        for cache in [a, b] {
            let variant = try await cache.variant(.of("demo/a.png")) {
                renders.increment()
                return ImageVariant(bytes: ByteBuffer(string: "small"), contentType: "image/webp")
            }
            #expect(String(buffer: variant.bytes) == "small" && variant.contentType == "image/webp")
        }
        #expect(renders.value == 1)
        _ = try await a.variant(.of("demo/b.png")) { Self.variant("other") }
        #expect(shared.names.count == 2)

        await b.drop(object: "demo/a.png")
        // A poll, not a margin: the drop reaches the shared store in the background; the loop ends as soon as it
        // has, and waits 30 s at most.
        let deadline = ContinuousClock.now + .seconds(30)
        while shared.names.count > 1, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))  // poll interval; the deadline is 30 s
        }
        #expect(shared.names.count == 1)
        // A (which still holds it in memory) is unaffected; a new cache renders again.
        let c = VariantCache(memoryLimit: 1 << 20, directory: nil, shared: shared)
        _ = try await c.variant(.of("demo/a.png")) {
            renders.increment()
            return Self.variant("again")
        }
        #expect(renders.value == 2)
    }

    @Test("a stored form whose content type is not printable ASCII is no variant")
    func storedFormRefused() {
        let variant = ImageVariant(bytes: ByteBuffer(string: "\u{0}bytes\n"), contentType: "image/png")
        let back = ImageVariant(stored: variant.stored)
        #expect(back?.contentType == "image/png" && back?.bytes == variant.bytes)
        #expect(ImageVariant(stored: ByteBuffer(string: "image/png\r\nX-Evil: 1\nbytes")) == nil)
        #expect(ImageVariant(stored: ByteBuffer(string: "no newline")) == nil)
    }

    @Test("many tiny variants cannot hold more than the memory limit in bookkeeping")
    func bookkeepingCounts() async throws {
        // Ten bytes each, and 100 of them in a 16 KiB budget: by their bytes alone all would stay.
        let cache = VariantCache(memoryLimit: 16 * 1024, directory: nil)
        for index in 0..<100 {
            _ = try await cache.variant(.of("media/\(index).png", width: 10)) {
                Self.variant("0123456789")
            }
        }
        // Each costs at least its ten bytes, twice its key and a fixed 256 bytes of bookkeeping.
        #expect(cache.count <= 16 * 1024 / (10 + 256))
        #expect(cache.count > 0)
    }
}
