import Foundation
import MockCDNCore
import NIOCore
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A data directory that someone else has written into: links, FIFOs, folders and junk where the disk store
/// expects its own files. The store must neither serve another file's bytes nor fail or hang at start-up.
@Suite("DiskObjectStore with hostile entries")
struct DiskObjectStoreHostileTests {
    static let attributes = ObjectAttributes(contentType: "text/plain", created: Date(timeIntervalSince1970: 0))

    static func key(_ text: String) -> ObjectKey { try! ObjectKey(text) }

    /// Stores `bytes` under `key`.
    static func put(_ store: DiskObjectStore, _ key: String, _ bytes: [UInt8]) async throws {
        _ = try await store.put(
            Self.key(key),
            body: AsyncStream { continuation in
                continuation.yield(ByteBuffer(bytes: bytes))
                continuation.finish()
            },
            attributes: Self.attributes,
            maxBytes: 1 << 20
        )
    }

    /// The names in `sub` of `folder`.
    static func names(_ folder: URL, _ sub: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(sub).path)
    }

    /// The metadata file's name for `key`, as the store names it.
    static func metaName(_ key: String) -> String {
        Digest.sha256(key).hexString + ".json"
    }

    @Test("a blob replaced by a symbolic link is never read, before or after a restart")
    func symlinkedBlob() async throws {
        let folder = try makeTemporaryDirectory()
        let outside = try makeTemporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: outside)
        }
        let body = Array("public bytes of the object".utf8)
        // As long as the object, so only the link, not a size check, can stop it.
        let secret = Array("SECRET! password: hunter22".utf8)
        #expect(secret.count == body.count)
        let secretFile = outside.appendingPathComponent("secret")
        try Data(secret).write(to: secretFile)

        let store = try await DiskObjectStore(directory: folder.path)
        try await Self.put(store, "media/p.txt", body)
        let blob = try #require(try Self.names(folder, "blobs").first)
        let blobPath = folder.appendingPathComponent("blobs/" + blob).path
        try FileManager.default.removeItem(atPath: blobPath)
        try FileManager.default.createSymbolicLink(atPath: blobPath, withDestinationPath: secretFile.path)

        // The running store: an error, never the link's target.
        let served = try? await store.collect(Self.key("media/p.txt"))
        #expect(served == nil)
        await #expect(throws: MockCDNError.storageFailure) { try await store.collect(Self.key("media/p.txt")) }

        // A restart: the object is skipped, and both the link and its target are left alone.
        let reopened = try await DiskObjectStore(directory: folder.path)
        #expect(try await reopened.metadata(for: Self.key("media/p.txt")) == nil)
        #expect((try? await reopened.collect(Self.key("media/p.txt"))) == nil)
        #expect(reopened.skippedEntries.map(\.path).contains("blobs/" + blob))
        #expect(try Data(contentsOf: secretFile) == Data(secret))
    }

    @Test("a blob replaced by a regular file of another size is refused, not served short")
    func changedBlob() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await DiskObjectStore(directory: folder.path)
        try await Self.put(store, "media/q.txt", Array("twelve bytes".utf8))
        let blob = try #require(try Self.names(folder, "blobs").first)
        try Data("other".utf8).write(to: folder.appendingPathComponent("blobs/" + blob))
        await #expect(throws: MockCDNError.storageFailure) { try await store.collect(Self.key("media/q.txt")) }
    }

    @Test("stray entries in meta/ are skipped and reported; every valid object is there")
    func strayMetadata() async throws {
        let folder = try makeTemporaryDirectory()
        let outside = try makeTemporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: outside)
        }
        do {
            let store = try await DiskObjectStore(directory: folder.path)
            for name in ["a", "b", "linked"] {
                try await Self.put(store, name, Array(name.utf8))
            }
        }
        let meta = folder.appendingPathComponent("meta")
        let fileManager = FileManager.default
        // A folder named like a metadata file, with something inside.
        try fileManager.createDirectory(at: meta.appendingPathComponent("x.json"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: meta.appendingPathComponent("x.json/inner"))
        // 2 MiB, far past any metadata record.
        try Data(repeating: UInt8(ascii: " "), count: 2 << 20).write(to: meta.appendingPathComponent("z.json"))
        try Data("{ not json".utf8).write(to: meta.appendingPathComponent("garbage.json"))
        // A valid record, but behind a link: moved out of the folder and linked back under its own name.
        let linkedName = Self.metaName("linked")
        let linkedTarget = outside.appendingPathComponent(linkedName)
        try fileManager.moveItem(at: meta.appendingPathComponent(linkedName), to: linkedTarget)
        try fileManager.createSymbolicLink(
            atPath: meta.appendingPathComponent(linkedName).path,
            withDestinationPath: linkedTarget.path
        )
        // A copy of a valid record under another name would resurrect the object after a delete.
        try fileManager.copyItem(
            at: meta.appendingPathComponent(Self.metaName("a")),
            to: meta.appendingPathComponent("copy.json")
        )

        let reopened = try await DiskObjectStore(directory: folder.path)
        #expect(try await reopened.list(prefix: "").map(\.key) == ["a", "b"])
        #expect(try await reopened.collect(Self.key("a")) == ByteBuffer(string: "a"))
        #expect(try await reopened.collect(Self.key("b")) == ByteBuffer(string: "b"))
        let skipped = Dictionary(uniqueKeysWithValues: reopened.skippedEntries.map { ($0.path, $0.reason) })
        #expect(
            Set(skipped.keys)
                == ["meta/x.json", "meta/z.json", "meta/garbage.json", "meta/" + linkedName, "meta/copy.json"]
        )
        #expect(skipped["meta/x.json"] == "not a regular file (directory)")
        #expect(skipped["meta/" + linkedName] == "not a regular file (symlink)")
        #expect(skipped["meta/z.json"]?.hasPrefix("larger than") == true)
        #expect(skipped["meta/garbage.json"] == "not a metadata record")
        #expect(skipped["meta/copy.json"] == "file name does not match its key")
        // Strays are reported, not deleted; and while one is there, no blob is collected, so the linked
        // object's bytes are still there for whoever puts its metadata back.
        #expect(fileManager.fileExists(atPath: meta.appendingPathComponent("x.json/inner").path))
        #expect(try Self.names(folder, "blobs").count == 3)
    }

    @Test("a FIFO in meta/ or blobs/ is skipped without being opened", .timeLimit(.minutes(1)))
    func fifo() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let store = try await DiskObjectStore(directory: folder.path)
            try await Self.put(store, "kept", [1, 2, 3])
        }
        // Opening either for reading, in blocking mode, would wait for a writer that never comes.
        let metaFIFO = folder.appendingPathComponent("meta/y.json").path
        let blobFIFO = folder.appendingPathComponent("blobs/0123456789abcdef0123456789abcdef").path
        #expect(mkfifo(metaFIFO, 0o600) == 0)
        #expect(mkfifo(blobFIFO, 0o600) == 0)

        let reopened = try await DiskObjectStore(directory: folder.path)
        #expect(try await reopened.list(prefix: "").map(\.key) == ["kept"])
        #expect(try await reopened.collect(Self.key("kept")) == ByteBuffer(bytes: [1, 2, 3]))
        #expect(
            reopened.skippedEntries.map(\.description).sorted() == [
                "blobs/0123456789abcdef0123456789abcdef: not a regular file (fifo)",
                "meta/y.json: not a regular file (fifo)",
            ]
        )
    }

    @Test("a blob swapped for a FIFO at read time answers an error, without waiting", .timeLimit(.minutes(1)))
    func fifoBlobAtReadTime() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await DiskObjectStore(directory: folder.path)
        try await Self.put(store, "media/f.bin", [1, 2, 3])
        let blob = try #require(try Self.names(folder, "blobs").first)
        let blobPath = folder.appendingPathComponent("blobs/" + blob).path
        try FileManager.default.removeItem(atPath: blobPath)
        #expect(mkfifo(blobPath, 0o600) == 0)
        await #expect(throws: MockCDNError.storageFailure) { try await store.collect(Self.key("media/f.bin")) }
    }

    @Test("a folder or link in blobs/ does not stop start-up and is left alone")
    func strayBlobs() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let store = try await DiskObjectStore(directory: folder.path)
            try await Self.put(store, "kept", [7])
        }
        let blobs = folder.appendingPathComponent("blobs")
        try FileManager.default.createDirectory(
            at: blobs.appendingPathComponent("stray/deeper"),
            withIntermediateDirectories: true
        )
        try Data([1]).write(to: blobs.appendingPathComponent("stray/deeper/file"))
        try FileManager.default.createSymbolicLink(
            atPath: blobs.appendingPathComponent("link").path,
            withDestinationPath: "/etc/hostname"
        )

        let reopened = try await DiskObjectStore(directory: folder.path)
        #expect(try await reopened.list(prefix: "").map(\.key) == ["kept"])
        #expect(Set(reopened.skippedEntries.map(\.path)) == ["blobs/stray", "blobs/link"])
        #expect(FileManager.default.fileExists(atPath: blobs.appendingPathComponent("stray/deeper/file").path))
    }
}
