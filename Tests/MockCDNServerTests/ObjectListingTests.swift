import Foundation
import MockCDNCore
import NIOCore
import Synchronization
import Testing

@testable import MockCDNServer

/// One page of a bucket listing, as S3 computes it: the cases a paginator meets at page boundaries.
@Suite("Object listing pages")
struct ObjectListingTests {
    static func metadata(_ key: String) throws -> ObjectMetadata {
        ObjectMetadata(
            key: try ObjectKey("demo/" + key),
            size: 1,
            sha256: Array(repeating: 0, count: 32),
            attributes: ObjectAttributes(contentType: "text/plain")
        )
    }

    /// A page over `keys` as a store hands them out: sorted, after a key, a batch at a time.
    static func page(
        _ keys: [String],
        prefix: String = "",
        delimiter: String = "",
        after: String? = nil,
        max: Int
    ) async throws -> (keys: [String], prefixes: [String], truncated: Bool, last: String?) {
        let sorted = keys.filter { $0.hasPrefix(prefix) }.sorted { ObjectKey.listedBefore($0, $1) }
        let page = try await ObjectListing.page(
            prefix: prefix,
            delimiter: delimiter,
            after: after,
            maxKeys: max,
            keys: { after, limit in
                Array(sorted.filter { key in after.map { ObjectKey.listedBefore($0, key) } ?? true }.prefix(limit))
            },
            metadata: { try Self.metadata($0) }
        )
        return (page.entries.map(\.key), page.commonPrefixes, page.isTruncated, page.last)
    }

    @Test("keys come in UTF-8 byte order, not Swift's string order")
    func byteOrder() async throws {
        // "Z" (0x5A) < "a" (0x61) < "é" (0xC3 0xA9); "e\u{301}" (0x65 0xCC 0x81) sorts by its first byte.
        let page = try await Self.page(["é", "a", "Z", "e\u{301}"], max: 10)
        #expect(page.keys == ["Z", "a", "e\u{301}", "é"])
    }

    @Test("max-keys=0 lists nothing and is not truncated, as S3 answers it, however many keys there are")
    func noKeys() async throws {
        for keys in [[], ["a"], ["a/1", "b", "c"]] {
            let page = try await Self.page(keys, delimiter: "/", max: 0)
            #expect(page.keys.isEmpty && page.prefixes.isEmpty && !page.truncated && page.last == nil)
        }
        #expect(try await Self.page(["a", "b"], max: 1).truncated)
    }

    @Test("a common prefix counts as one entry, and the next page starts after every key under it")
    func commonPrefixAcrossPages() async throws {
        let keys = ["a/1", "a/2", "a/3", "b", "c/1", "d"]
        let first = try await Self.page(keys, delimiter: "/", max: 2)
        #expect(first.prefixes == ["a/"] && first.keys == ["b"] && first.truncated && first.last == "b")
        let second = try await Self.page(keys, delimiter: "/", after: "a/", max: 1)
        #expect(second.keys == ["b"] && second.prefixes.isEmpty && second.truncated)
        let third = try await Self.page(keys, delimiter: "/", after: "b", max: 5)
        #expect(third.prefixes == ["c/"] && third.keys == ["d"] && !third.truncated)
    }

    @Test("a prefix, a delimiter after it, and max-keys 0")
    func prefixAndEmpty() async throws {
        let keys = ["photos/2026/a.jpg", "photos/2026/b.jpg", "photos/cover.jpg", "videos/x.mp4"]
        let page = try await Self.page(keys, prefix: "photos/", delimiter: "/", max: 10)
        #expect(page.prefixes == ["photos/2026/"] && page.keys == ["photos/cover.jpg"])
        // S3 answers max-keys 0 with an empty page that is not truncated (`noKeys`).
        let empty = try await Self.page(keys, max: 0)
        #expect(empty.keys.isEmpty && !empty.truncated && empty.last == nil)
    }

    @Test("pages of a bucket of 20,000 keys in the memory store: each reads its own keys, together they are all")
    func largeBucket() async throws {
        let store = MemoryObjectStore()
        var generator = SystemRandomNumberGenerator()
        var names = (0..<20_000).map { "d\($0 % 7)/k\($0)" }
        names.shuffle(using: &generator)
        for name in names {
            let body = AsyncStream {
                $0.yield(ByteBuffer(bytes: [1]))
                $0.finish()
            }
            let attributes = ObjectAttributes(contentType: "text/plain")
            _ = try await store.put(ObjectKey("demo/" + name), body: body, attributes: attributes, maxBytes: 1)
        }
        // One page of 100 keys, with no delimiter: a batch of 101 keys read, not the bucket.
        let read = Mutex(0)
        let keys: (String?, Int) async throws -> [String] = { after, limit in
            let page = try await store.keys(prefix: "demo/", after: after.map { "demo/" + $0 }, limit: limit)
            read.withLock { $0 += page.count }
            return page.map { String($0.rawValue.dropFirst(5)) }
        }
        let metadata: (String) async throws -> ObjectMetadata? = {
            try await store.metadata(for: ObjectKey("demo/" + $0))
        }
        let first = try await ObjectListing.page(
            prefix: "",
            delimiter: "",
            after: nil,
            maxKeys: 100,
            keys: keys,
            metadata: metadata
        )
        #expect(first.entries.count == 100 && first.isTruncated && read.withLock { $0 } == 101)
        // With a delimiter, each folder is one common prefix, reached by skipping past the one before.
        read.withLock { $0 = 0 }
        let folders = try await ObjectListing.page(
            prefix: "",
            delimiter: "/",
            after: nil,
            maxKeys: 1000,
            keys: keys,
            metadata: metadata
        )
        #expect(folders.commonPrefixes == (0..<7).map { "d\($0)/" } && !folders.isTruncated)
        #expect(read.withLock { $0 } <= 7 * 1001)
        // Walking every page of one folder gives its keys, each once, in UTF-8 order.
        var walked: [String] = []
        var after: String?
        repeat {
            let page = try await ObjectListing.page(
                prefix: "d3/",
                delimiter: "/",
                after: after,
                maxKeys: 1000,
                keys: { after, limit in
                    try await store.keys(prefix: "demo/d3/", after: after.map { "demo/" + $0 }, limit: limit)
                        .map { String($0.rawValue.dropFirst(5)) }
                },
                metadata: metadata
            )
            walked += page.entries.map(\.key)
            after = page.isTruncated ? page.last : nil
        } while after != nil
        #expect(walked == names.filter { $0.hasPrefix("d3/") }.sorted { ObjectKey.listedBefore($0, $1) })
    }
}
