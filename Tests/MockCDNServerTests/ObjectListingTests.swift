import Foundation
import MockCDNCore
import Testing

@testable import MockCDNServer

/// One page of a bucket listing, as S3 computes it: the cases a paginator meets at page boundaries.
@Suite("Object listing pages")
struct ObjectListingTests {
    static func entries(_ keys: [String]) throws -> [ObjectListing.Entry] {
        try keys.map { key in
            ObjectListing.Entry(
                key: key,
                metadata: ObjectMetadata(
                    key: try ObjectKey("demo/" + key),
                    size: 1,
                    sha256: Array(repeating: 0, count: 32),
                    attributes: ObjectAttributes(contentType: "text/plain")
                )
            )
        }
    }

    static func page(
        _ keys: [String],
        prefix: String = "",
        delimiter: String = "",
        after: String? = nil,
        max: Int
    )
        throws -> (keys: [String], prefixes: [String], truncated: Bool, last: String?)
    {
        let page = ObjectListing(
            try Self.entries(keys),
            prefix: prefix,
            delimiter: delimiter,
            after: after,
            maxKeys: max
        )
        return (page.entries.map(\.key), page.commonPrefixes, page.isTruncated, page.last)
    }

    @Test("keys come in UTF-8 byte order, not Swift's string order")
    func byteOrder() throws {
        // "Z" (0x5A) < "a" (0x61) < "é" (0xC3 0xA9); "e\u{301}" (0x65 0xCC 0x81) sorts by its first byte.
        let page = try Self.page(["é", "a", "Z", "e\u{301}"], max: 10)
        #expect(page.keys == ["Z", "a", "e\u{301}", "é"])
    }

    @Test("a common prefix counts as one entry, and the next page starts after every key under it")
    func commonPrefixAcrossPages() throws {
        let keys = ["a/1", "a/2", "a/3", "b", "c/1", "d"]
        let first = try Self.page(keys, delimiter: "/", max: 2)
        #expect(first.prefixes == ["a/"] && first.keys == ["b"] && first.truncated && first.last == "b")
        let second = try Self.page(keys, delimiter: "/", after: "a/", max: 1)
        #expect(second.keys == ["b"] && second.prefixes.isEmpty && second.truncated)
        let third = try Self.page(keys, delimiter: "/", after: "b", max: 5)
        #expect(third.prefixes == ["c/"] && third.keys == ["d"] && !third.truncated)
    }

    @Test("a prefix, a delimiter after it, and max-keys 0")
    func prefixAndEmpty() throws {
        let keys = ["photos/2026/a.jpg", "photos/2026/b.jpg", "photos/cover.jpg", "videos/x.mp4"]
        let page = try Self.page(keys, prefix: "photos/", delimiter: "/", max: 10)
        #expect(page.prefixes == ["photos/2026/"] && page.keys == ["photos/cover.jpg"])
        let empty = try Self.page(keys, max: 0)
        #expect(empty.keys.isEmpty && empty.truncated && empty.last == nil)
    }
}
