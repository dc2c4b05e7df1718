import Foundation
import MockCDNCore
import MockCDNS3
import NIOCore
import Testing

/// One suite, run against every store: memory, disk, and S3 (moto_server, see `MotoServer`).
@Suite("ObjectStore")
struct ObjectStoreTests {
    enum Kind: String, CaseIterable, Sendable {
        case memory, disk, s3

        /// The kinds this run covers: S3 where moto_server is installed, and always under `make test`.
        static var running: [Kind] { allCases.filter { $0 != .s3 || MotoServer.enabled } }
    }

    /// A store of `kind` plus the folder (disk) or bucket (S3) behind it, removed by `cleanUp`.
    struct Subject {
        let store: any ObjectStore
        let folder: URL?
        let s3: S3Client?

        init(_ kind: Kind) async throws {
            self.folder = kind == .disk ? try makeTemporaryDirectory() : nil
            self.s3 = kind == .s3 ? try await MotoServer.bucket(prefix: "team/") : nil
            switch kind {
            case .memory: self.store = MemoryObjectStore()
            case .disk: self.store = try await DiskObjectStore(directory: self.folder!.path)
            case .s3: self.store = S3ObjectStore(client: self.s3!)
            }
        }

        /// Files under `sub` of the store's folder or bucket prefix (none for the memory store).
        func files(in sub: String) async throws -> [String] {
            if let s3 {
                return try await s3.listKeys(prefix: "team/" + sub + "/")
            }
            guard let folder else { return [] }
            return try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(sub).path)
        }

        /// A new store over the same folder or bucket, as after a restart (nil for the memory store).
        func reopened() async throws -> (any ObjectStore)? {
            if let s3 { return S3ObjectStore(client: s3) }
            guard let folder else { return nil }
            return try await DiskObjectStore(directory: folder.path)
        }

        func cleanUp() {
            if let folder { try? FileManager.default.removeItem(at: folder) }
        }
    }

    struct ExplodingBody: Error {}

    /// An async sequence of chunks; throws `ExplodingBody` after `failAfter` chunks when set.
    static func chunks(_ data: [UInt8], size: Int, failAfter: Int? = nil) -> AsyncThrowingStream<ByteBuffer, any Error>
    {
        AsyncThrowingStream { continuation in
            var offset = 0
            var sent = 0
            while offset < data.count {
                if let failAfter, sent == failAfter {
                    continuation.finish(throwing: ExplodingBody())
                    return
                }
                let end = min(offset + size, data.count)
                continuation.yield(ByteBuffer(bytes: data[offset..<end]))
                offset = end
                sent += 1
            }
            continuation.finish()
        }
    }

    static func key(_ text: String) -> ObjectKey { try! ObjectKey(text) }

    static let attributes = ObjectAttributes(
        contentType: "text/plain",
        owner: "alice",
        extras: ["channel": "messaging:general"],
        created: Date(timeIntervalSince1970: 1_700_000_000.75)
    )

    @Test(
        "an object stored without its SHA-256 keeps the caller's ETag, reads back, and survives a restart",
        arguments: Kind.running
    )
    func etagOnly(kind: Kind) async throws {
        let subject = try await Subject(kind)
        defer { subject.cleanUp() }
        let body = Array("an S3 body with an unsigned payload".utf8)
        let key = Self.key("bucket/unsigned.txt")
        var attributes = Self.attributes
        attributes.etag = "\"" + Digest.md5(body).hexString + "\""
        let metadata = try await subject.store.put(
            key,
            body: Self.chunks(body, size: 5),
            maxBytes: 100,
            digest: .etagOnly
        ) { summary in
            #expect(summary.sha256 == nil)
            #expect(summary.size == body.count)
            return attributes
        }
        #expect(metadata.sha256 == nil)
        #expect(metadata.etag == attributes.etag)
        #expect(metadata.size == body.count)
        #expect(try await subject.store.metadata(for: key) == metadata)
        #expect(try await subject.store.collect(key) == ByteBuffer(bytes: body))
        // The record has no `sha256` field, and one that has reads as before.
        let encoded = try JSONEncoder().encode(metadata)
        #expect(!String(decoding: encoded, as: UTF8.self).contains("sha256"))
        let hashed = try await subject.store.put(
            Self.key("bucket/hashed.txt"),
            body: Self.chunks(body, size: 5),
            attributes: Self.attributes,
            maxBytes: 100
        )
        #expect(try JSONDecoder().decode(ObjectMetadata.self, from: JSONEncoder().encode(hashed)) == hashed)
        if let reopened = try await subject.reopened() {
            #expect(try await reopened.metadata(for: key) == metadata)
            #expect(try await reopened.metadata(for: Self.key("bucket/hashed.txt"))?.sha256 == hashed.sha256)
        }
    }

    @Test("put, metadata, read and range read", arguments: Kind.running)
    func roundTrip(kind: Kind) async throws {
        let subject = try await Subject(kind)
        defer { subject.cleanUp() }
        let body = Array("hello, object store".utf8)
        let metadata = try await subject.store.put(
            Self.key("attachments/1/hello.txt"),
            body: Self.chunks(body, size: 4),
            attributes: Self.attributes,
            maxBytes: 100
        )
        #expect(metadata.size == body.count)
        #expect(metadata.sha256 == Digest.sha256(body).hexString)
        #expect(metadata.etag == "\"" + String(Digest.sha256(body).hexString.prefix(32)) + "\"")
        #expect(metadata.created == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(metadata.owner == "alice")
        #expect(metadata.extras == ["channel": "messaging:general"])
        #expect(try await subject.store.metadata(for: Self.key("attachments/1/hello.txt")) == metadata)
        #expect(try await subject.store.collect(Self.key("attachments/1/hello.txt")) == ByteBuffer(bytes: body))
        #expect(
            try await subject.store.collect(Self.key("attachments/1/hello.txt"), range: 7..<12)
                == ByteBuffer(string: "objec")
        )
        #expect(try await subject.store.collect(Self.key("attachments/1/hello.txt"), range: 3..<3) == ByteBuffer())
        await #expect(throws: MockCDNError.rangeNotSatisfiable) {
            try await subject.store.collect(Self.key("attachments/1/hello.txt"), range: 10..<20)
        }
        await #expect(throws: MockCDNError.objectNotFound) { try await subject.store.collect(Self.key("nope")) }
        #expect(try await subject.store.metadata(for: Self.key("nope")) == nil)
    }

    @Test("a large object streams in and out in chunks", arguments: Kind.running)
    func largeObjectStreams(kind: Kind) async throws {
        let subject = try await Subject(kind)
        defer { subject.cleanUp() }
        // Past two of the disk store's writeback strides (8 MiB), and not a whole number of its writes.
        let body = (0..<(17 * 1024 * 1024 + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let key = Self.key("media/big.bin")
        _ = try await subject.store.put(
            key,
            body: Self.chunks(body, size: 65_536),
            attributes: Self.attributes,
            maxBytes: 18 << 20
        )
        var chunkCount = 0
        var collected: [UInt8] = []
        try await subject.store.read(key, range: nil) { chunk in
            chunkCount += 1
            collected += chunk.readableBytesView
        }
        #expect(collected == body)
        if kind == .disk {
            #expect(chunkCount > 1, "the disk store must stream, not load the file whole")
        }
    }

    @Test("a body past the limit stores nothing and leaves no file", arguments: Kind.running)
    func tooLarge(kind: Kind) async throws {
        let subject = try await Subject(kind)
        defer { subject.cleanUp() }
        await #expect(throws: MockCDNError.objectTooLarge) {
            try await subject.store.put(
                Self.key("a/too-big"),
                body: Self.chunks(Array(repeating: 7, count: 11), size: 3),
                attributes: Self.attributes,
                maxBytes: 10
            )
        }
        #expect(try await subject.store.metadata(for: Self.key("a/too-big")) == nil)
        #expect(try await subject.store.list(prefix: "").isEmpty)
        #expect(try await subject.files(in: "tmp").isEmpty)
        #expect(try await subject.files(in: "blobs").isEmpty)
        #expect(try await subject.files(in: "meta").isEmpty)
        // Exactly at the limit is fine.
        let metadata = try await subject.store.put(
            Self.key("a/just-fits"),
            body: Self.chunks(Array(repeating: 7, count: 10), size: 3),
            attributes: Self.attributes,
            maxBytes: 10
        )
        #expect(metadata.size == 10)
    }

    @Test("a write that throws midway leaves no object and no temp file", arguments: Kind.running)
    func failedWrite(kind: Kind) async throws {
        let subject = try await Subject(kind)
        defer { subject.cleanUp() }
        let key = Self.key("images/x/photo.png")
        _ = try await subject.store.put(
            key,
            body: Self.chunks([1, 2, 3], size: 1),
            attributes: Self.attributes,
            maxBytes: 100
        )
        await #expect(throws: ExplodingBody.self) {
            try await subject.store.put(
                key,
                body: Self.chunks(Array(repeating: 9, count: 1000), size: 100, failAfter: 3),
                attributes: Self.attributes,
                maxBytes: 10_000
            )
        }
        // The earlier object is untouched, and nothing of the failed write remains.
        #expect(try await subject.store.collect(key) == ByteBuffer(bytes: [1, 2, 3]))
        #expect(try await subject.files(in: "tmp").isEmpty)
        #expect(try await subject.files(in: "blobs").count == (kind == .memory ? 0 : 1))
    }

    @Test("overwrite, delete and list by prefix", arguments: Kind.running)
    func overwriteDeleteList(kind: Kind) async throws {
        let subject = try await Subject(kind)
        defer { subject.cleanUp() }
        for name in ["images/b/2.png", "images/a/1.png", "attachments/c/3.pdf"] {
            _ = try await subject.store.put(
                Self.key(name),
                body: Self.chunks(Array(name.utf8), size: 5),
                attributes: Self.attributes,
                maxBytes: 100
            )
        }
        let replaced = try await subject.store.put(
            Self.key("images/a/1.png"),
            body: Self.chunks([42], size: 1),
            attributes: Self.attributes,
            maxBytes: 100
        )
        #expect(replaced.size == 1)
        #expect(try await subject.store.list(prefix: "images/").map(\.key) == ["images/a/1.png", "images/b/2.png"])
        #expect(try await subject.store.list(prefix: "").count == 3)
        #expect(try await subject.files(in: "blobs").count == (kind == .memory ? 0 : 3), "a replaced blob is removed")

        #expect(try await subject.store.delete(Self.key("images/a/1.png")))
        #expect(try await !subject.store.delete(Self.key("images/a/1.png")))
        await #expect(throws: MockCDNError.objectNotFound) {
            try await subject.store.collect(Self.key("images/a/1.png"))
        }
        #expect(try await subject.store.list(prefix: "images/").map(\.key) == ["images/b/2.png"])
        #expect(try await subject.files(in: "blobs").count == (kind == .memory ? 0 : 2))
    }

    @Test(
        "keys with no app, no key, a control character or past 1,024 bytes are refused",
        arguments: ["", "/etc/passwd", "demo/", "/x", "a\u{0}b/x", "a/b\u{0}c", "a/b\nc", "a/\u{7f}"]
    )
    func invalidKeys(text: String) {
        #expect(throws: MockCDNError.invalidObjectKey) { try ObjectKey(text) }
    }

    @Test("a key of 1,025 bytes within its app is too long; 1,024 bytes is not")
    func keyLength() throws {
        #expect(throws: MockCDNError.keyTooLong) { try ObjectKey("demo/" + String(repeating: "k", count: 1025)) }
        // Two-byte characters: 512 of them are 1,024 bytes.
        #expect(try ObjectKey("demo/" + String(repeating: "é", count: 512)).rawValue.utf8.count == 1029)
        #expect(throws: MockCDNError.keyTooLong) { try ObjectKey("demo/" + String(repeating: "é", count: 512) + "k") }
    }

    @Test(
        "keys S3 takes are accepted as sent: dot and empty segments, a trailing or leading slash, a backslash",
        arguments: [
            "images/0b6f/photo.jpg", "a/b c/ü.png", "x..y/..z", "a/../b", "a/./b", "a//b", "a/dir/", "a//x",
            "a/..", "a/a\\b", "demo/" + String(repeating: "k", count: 1024),
        ]
    )
    func validKeys(text: String) throws {
        #expect(try ObjectKey(text).rawValue == text)
    }

    @Test(
        "a media path has no dot or empty segment, trailing slash or backslash",
        arguments: [
            ("demo/images/photo.jpg", true), ("demo/x..y/..z", true), ("demo/a/../b", false), ("demo/a/./b", false),
            ("demo/a//b", false), ("demo/dir/", false), ("demo/..", false), ("demo/a\\b", false), ("demo//x", false),
        ]
    )
    func mediaPaths(text: String, isMediaPath: Bool) throws {
        #expect(try ObjectKey(text).isMediaPath == isMediaPath)
    }

    @Test("keys are bytes: NFC and NFD spellings differ, hash apart and sort by their UTF-8")
    func keysAreBytes() throws {
        let nfc = try ObjectKey("demo/caf\u{e9}")
        let nfd = try ObjectKey("demo/cafe\u{301}")
        #expect(nfc.rawValue == nfd.rawValue, "Swift's String calls them equal")
        #expect(nfc != nfd)
        #expect(Set([nfc, nfd]).count == 2)
        // 0x65 0xCC 0x81 ("e" and the combining accent) before 0xC3 0xA9 ("é").
        #expect(nfd < nfc)
        #expect("cafe\u{301}".hasBytePrefix("cafe") && !"cafe\u{301}".hasPrefix("cafe"))
        #expect(!"caf\u{e9}".hasBytePrefix("cafe\u{301}"))
        #expect("a/cafe\u{301}".hasByteSuffix("\u{301}") && !"a/caf\u{e9}".hasByteSuffix("\u{301}"))
    }

    @Test("NFC and NFD keys are two objects: put, read, list and delete each apart", arguments: Kind.running)
    func unicodeSpellings(kind: Kind) async throws {
        let subject = try await Subject(kind)
        defer { subject.cleanUp() }
        let nfc = Self.key("demo/u/caf\u{e9}.txt")
        let nfd = Self.key("demo/u/cafe\u{301}.txt")
        for (key, text) in [(nfc, "composed"), (nfd, "decomposed")] {
            _ = try await subject.store.put(
                key,
                body: Self.chunks(Array(text.utf8), size: 4),
                attributes: Self.attributes,
                maxBytes: 100
            )
        }
        #expect(try await subject.store.collect(nfc) == ByteBuffer(string: "composed"))
        #expect(try await subject.store.collect(nfd) == ByteBuffer(string: "decomposed"))
        #expect(
            try await subject.store.list(prefix: "demo/u/").map { Array($0.key.utf8) } == [
                Array(nfd.rawValue.utf8), Array(nfc.rawValue.utf8),
            ]
        )
        #expect(try await subject.store.keys(prefix: "demo/u/cafe", after: nil, limit: 10) == [nfd])
        #expect(try await subject.store.delete(nfd))
        #expect(try await subject.store.collect(nfc) == ByteBuffer(string: "composed"))
        #expect(try await subject.store.metadata(for: nfd) == nil)
        if let reopened = try await subject.reopened() {
            #expect(try await reopened.collect(nfc) == ByteBuffer(string: "composed"))
            #expect(try await reopened.metadata(for: nfd) == nil)
        }
    }

    @Test(
        "keys S3 takes round-trip on every store, the longest too, and nothing lands outside it",
        arguments: Kind.running
    )
    func s3Keys(kind: Kind) async throws {
        let subject = try await Subject(kind)
        defer { subject.cleanUp() }
        let texts = [
            "demo/a/../../../escape", "demo/a/./b", "demo/a//b", "demo/dir/", "demo//lead", "demo/..",
            "demo/" + String(repeating: "é", count: 512), "demo/" + String(repeating: "k", count: 1024),
        ]
        for (index, text) in texts.enumerated() {
            _ = try await subject.store.put(
                Self.key(text),
                body: Self.chunks(Array("body \(index)".utf8), size: 3),
                attributes: Self.attributes,
                maxBytes: 100
            )
        }
        for (index, text) in texts.enumerated() {
            #expect(
                try await subject.store.collect(Self.key(text)) == ByteBuffer(string: "body \(index)"),
                "\(text.prefix(20))"
            )
        }
        let listed = try await subject.store.list(prefix: "demo/").map(\.key)
        #expect(
            listed.map { Array($0.utf8) } == texts.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        )
        #expect(
            try await subject.store.keys(prefix: "demo/" + String(repeating: "k", count: 1000), after: nil, limit: 5)
                .count == 1
        )
        if let folder = subject.folder {
            // Only the store's own folders, and no file named after a key.
            let entries = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            #expect(entries == ["blobs", "meta", "tmp"])
            #expect(
                !FileManager.default.fileExists(
                    atPath: folder.deletingLastPathComponent().appendingPathComponent("escape").path
                )
            )
        }
        if let reopened = try await subject.reopened() {
            #expect(try await reopened.list(prefix: "demo/").count == texts.count)
        }
        for text in texts { #expect(try await subject.store.delete(Self.key(text))) }
        #expect(try await subject.store.list(prefix: "").isEmpty)
    }

    @Test("a finished write survives a new disk store opened on the same folder")
    func diskReopen() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let body = Array("persist me".utf8)
        let written: ObjectMetadata
        do {
            let store = try await DiskObjectStore(directory: folder.path)
            written = try await store.put(
                Self.key("media/u/p.txt"),
                body: Self.chunks(body, size: 3),
                attributes: Self.attributes,
                maxBytes: 100
            )
        }
        let reopened = try await DiskObjectStore(directory: folder.path)
        #expect(try await reopened.metadata(for: Self.key("media/u/p.txt")) == written)
        #expect(try await reopened.collect(Self.key("media/u/p.txt")) == ByteBuffer(bytes: body))
    }

    @Test("opening a disk store removes what a crash left behind")
    func diskCleansLeftovers() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let store = try await DiskObjectStore(directory: folder.path)
            _ = try await store.put(
                Self.key("kept"),
                body: Self.chunks([1], size: 1),
                attributes: Self.attributes,
                maxBytes: 10
            )
        }
        // What a crash between the steps of a write would leave: a temp file, and a blob no metadata names.
        try Data([1, 2, 3]).write(to: folder.appendingPathComponent("tmp/0123abcd"))
        try Data([4, 5, 6]).write(to: folder.appendingPathComponent("blobs/deadbeef"))
        let reopened = try await DiskObjectStore(directory: folder.path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("tmp").path).isEmpty)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("blobs").path).count == 1
        )
        #expect(try await reopened.list(prefix: "").map(\.key) == ["kept"])
    }

    @Test("opening a disk store drops metadata whose blob is missing")
    func diskDropsDanglingMetadata() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let store = try await DiskObjectStore(directory: folder.path)
            for name in ["a", "b"] {
                _ = try await store.put(
                    Self.key(name),
                    body: Self.chunks([1], size: 1),
                    attributes: Self.attributes,
                    maxBytes: 10
                )
            }
        }
        let blobs = folder.appendingPathComponent("blobs")
        let first = try #require(try FileManager.default.contentsOfDirectory(atPath: blobs.path).first)
        try FileManager.default.removeItem(at: blobs.appendingPathComponent(first))
        let reopened = try await DiskObjectStore(directory: folder.path)
        #expect(try await reopened.list(prefix: "").count == 1)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("meta").path).count == 1
        )
    }
}
