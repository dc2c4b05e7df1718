import Foundation
import MockCDNCore
import NIOCore
import Synchronization
import Testing

@Suite("Image transform parameters and the variant cache")
struct ImageTransformParsingTests {
    static func parse(_ query: String) throws(ImageTransform.Invalid) -> ImageTransform? {
        let items = query.split(separator: "&").map { pair -> (name: String, value: String) in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
        return try ImageTransform.parse(items)
    }

    @Test(
        "queries normalise to one spelling per variant",
        arguments: [
            ("w=100", "w=100&h=*&resize=clip"),
            ("w=100&h=*&resize=clip&ro=0", "w=100&h=*&resize=clip"),
            ("h=20&w=10&crop=top", "w=10&h=20&resize=clip"),
            ("resize=crop&w=10&h=20", "w=10&h=20&resize=crop&crop=center"),
            ("crop=bottom&resize=crop&w=*&h=4096", "w=*&h=4096&resize=crop&crop=bottom"),
            ("w=1&h=1&resize=fill", "w=1&h=1&resize=fill"),
            ("w=7&w=9", "w=7&h=*&resize=clip"),
        ]
    )
    func normalised(_ query: String, _ expected: String) throws {
        #expect(try Self.parse(query)?.normalized == expected)
    }

    @Test("no transform parameters, or ro alone, ask for no transform", arguments: ["", "ro=0", "a=b&ro=1", "W=10"])
    func none(_ query: String) throws {
        #expect(try Self.parse(query) == nil)
    }

    @Test(
        "malformed values are refused naming the parameter",
        arguments: [
            ("w=0", "w must be"), ("w=4097", "w must be"), ("h=+5", "h must be"), ("w=0x10", "w must be"),
            ("w=99999999999999999999", "w must be"), ("h=", "h must be"), ("w=10&resize=Clip", "resize must be"),
            ("w=10&crop=centre", "crop must be"), ("w= 10", "w must be"),
        ]
    )
    func malformed(_ query: String, _ message: String) {
        let error = #expect(throws: ImageTransform.Invalid.self) { try Self.parse(query) }
        #expect(error?.message.hasPrefix(message) == true, "\(query): \(error?.message ?? "")")
    }

    @Test("a missing side follows the source's aspect ratio")
    func box() {
        let landscape = ImageHeader(width: 400, height: 200, frames: 1, format: .png)
        #expect(ImageTransform(width: 100, height: nil).box(for: landscape)! == (100, 50))
        #expect(ImageTransform(width: nil, height: 50).box(for: landscape)! == (100, 50))
        #expect(ImageTransform(width: 30, height: 70).box(for: landscape)! == (30, 70))
        #expect(ImageTransform(width: 1, height: nil).box(for: landscape)! == (1, 1))
        #expect(ImageTransform(width: nil, height: nil).box(for: landscape) == nil)
    }

    @Test("the pixel bound counts width x height x frames and survives absurd headers")
    func pixelBound() {
        let limit = VariantRenderer.defaultMaximumPixels
        #expect(throws: Never.self) {
            try VariantRenderer.checkPixels(
                .init(width: 4000, height: 4000, frames: 1, format: .jpeg),
                maximumPixels: limit
            )
        }
        let over = #expect(throws: TransformRefusal.self) {
            try VariantRenderer.checkPixels(
                .init(width: 4100, height: 4100, frames: 1, format: .jpeg),
                maximumPixels: limit
            )
        }
        #expect(over?.kind == .tooManyPixels)
        #expect(over?.message.contains("16810000") == true && over?.message.contains("16800000") == true)
        let frames = #expect(throws: TransformRefusal.self) {
            try VariantRenderer.checkPixels(
                .init(width: 1100, height: 1100, frames: 14, format: .gif),
                maximumPixels: limit
            )
        }
        #expect(frames?.message.contains("14 frames") == true)
        #expect(throws: TransformRefusal.self) {
            try VariantRenderer.checkPixels(
                .init(width: Int.max / 2, height: Int.max / 2, frames: 3, format: .png),
                maximumPixels: limit
            )
        }
    }

    static func variant(_ text: String) -> ImageVariant {
        ImageVariant(bytes: ByteBuffer(string: text), contentType: "image/png")
    }

    @Test("identical requests that arrive together render once")
    func singleFlight() async throws {
        // Each request that joins the render in flight counts a hit; the render ends once all 31 others have
        // joined (an event, not a pause), or after 30 s, when single flight is broken and none join.
        let joined = Counter()
        let cache = VariantCache(memoryLimit: 1 << 20, directory: nil) { hit in if hit { joined.increment() } }
        let renders = Counter()
        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    let variant = try await cache.variant(.of("demo/a.png", etag: "\"e\"")) {
                        renders.increment()
                        let deadline = ContinuousClock.now + .seconds(30)
                        while joined.value < 31, ContinuousClock.now < deadline {
                            try await Task.sleep(for: .milliseconds(5))  // poll interval; the deadline is 30 s
                        }
                        return Self.variant("resized")
                    }
                    return String(buffer: variant.bytes)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(joined.value == 31)
        #expect(renders.value == 1)
        #expect(results.count == 32 && results.allSatisfy { $0 == "resized" })
        #expect(cache.count == 1)
    }

    @Test("the memory cache evicts least recently used variants past its byte limit; drop forgets an object")
    func eviction() async throws {
        // KiB, so that each entry's few hundred bytes of bookkeeping (also counted) change nothing.
        let cache = VariantCache(memoryLimit: 100 * 1024, directory: nil)
        let renders = Counter()
        func get(_ object: String, _ transform: Int) async throws -> ImageVariant {
            try await cache.variant(.of(object, etag: "\"e\"", width: transform)) {
                renders.increment()
                return Self.variant(String(repeating: "x", count: 40 * 1024))
            }
        }
        _ = try await get("a", 1)
        _ = try await get("b", 1)
        _ = try await get("a", 1)  // a is now the most recent
        _ = try await get("c", 1)  // 120 KiB: evicts b, the least recent
        #expect(renders.value == 3)
        _ = try await get("a", 1)
        #expect(renders.value == 3)
        _ = try await get("b", 1)
        #expect(renders.value == 4)
        await cache.drop(object: "b")
        _ = try await get("b", 1)
        #expect(renders.value == 5)
    }

    @Test("a failed render is not cached, and a disabled cache renders every time")
    func failures() async throws {
        struct Boom: Error {}
        let cache = VariantCache(memoryLimit: 1 << 20, directory: nil)
        await #expect(throws: Boom.self) {
            try await cache.variant(.of("a", width: 150)) { throw Boom() }
        }
        let later = try await cache.variant(.of("a", width: 150)) { Self.variant("ok") }
        #expect(String(buffer: later.bytes) == "ok")

        let disabled = VariantCache(memoryLimit: 0, directory: nil)
        let renders = Counter()
        for _ in 0..<3 {
            _ = try await disabled.variant(.of("a", width: 150)) {
                renders.increment()
                return Self.variant("ok")
            }
        }
        #expect(renders.value == 3)
    }

    @Test("variants on disk survive a new cache over the same folder; drop removes them")
    func disk() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = VariantCache(memoryLimit: 1 << 20, directory: folder.path)
        _ = try await first.variant(.of("demo/a.png", width: 150)) { Self.variant("stored") }
        let second = VariantCache(memoryLimit: 1 << 20, directory: folder.path)
        let read = try await second.variant(.of("demo/a.png", width: 150)) {
            Issue.record("rendered again instead of reading the disk copy")
            return Self.variant("again")
        }
        #expect(String(buffer: read.bytes) == "stored")
        #expect(read.contentType == "image/png")
        await second.drop(object: "demo/a.png")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}

/// A count shared with concurrent closures.
final class Counter: Sendable {
    private let count = Mutex(0)

    func increment() { self.count.withLock { $0 += 1 } }

    var value: Int { self.count.withLock { $0 } }
}
