import Foundation
import NIOCore
import Synchronization
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Objects on disk under one folder (`--data-dir`), crash-safe.
///
/// Layout: `blobs/<id>` holds an object's bytes, `meta/<sha256 of key>.json` its metadata and blob id,
/// `tmp/` writes in progress. A write goes to `tmp/`, is fsynced, and is renamed into `blobs/`; then the
/// metadata file is written the same way. The metadata rename is the commit: after a crash an object is
/// either wholly there or not at all, and opening the store removes leftovers (temp files, blobs no
/// metadata names). Metadata is also kept in memory, so lookups never touch the disk. An object costs four
/// fsyncs: its bytes (once, after the last write), `blobs/` (the blob's name is durable before a record names
/// it), its metadata file, and `meta/` (the commit).
///
/// Nothing under the folder is trusted to be what the store wrote: files are opened without following
/// symbolic links and without waiting on a FIFO, and must be regular files. An entry that is not (or a
/// metadata file that is too large or does not decode) is left alone and listed in `skippedEntries`, so
/// one stray file never stops the server from starting and never makes it serve another file's bytes.
public final class DiskObjectStore: ObjectStore {
    struct Record: Codable {
        var blob: String
        var metadata: ObjectMetadata
    }

    public let directory: FilePath
    /// What opening the store found under the folder and left alone, with the reason; for the server to log.
    public let skippedEntries: [SkippedEntry]
    private let blobs: FilePath
    private let meta: FilePath
    private let temporary: FilePath
    private let index: Mutex<OrderedIndex<Record>>
    private static let chunkLength = ByteCount.kibibytes(64)
    /// Bytes gathered per write of an object's body.
    private static let writeBufferLength = 1024 * 1024

    /// Opens (creating if needed) the store in `directory` and cleans up after any crash.
    ///
    /// Entries that are not what the store writes are skipped, not fatal: see `skippedEntries`.
    ///
    /// - Parameter directory: the folder; created with its parents when missing.
    /// - Throws: `MockCDNError.storageFailure` when the folder itself (or `blobs/`, `meta/`) cannot be used.
    public init(directory: String) async throws {
        self.directory = FilePath(directory)
        self.blobs = self.directory.appending("blobs")
        self.meta = self.directory.appending("meta")
        self.temporary = self.directory.appending("tmp")
        do {
            let contents = try await Self.openContents(
                blobs: self.blobs,
                meta: self.meta,
                temporary: self.temporary
            )
            self.index = Mutex(OrderedIndex(contents.records))
            self.skippedEntries = contents.skipped.sorted { $0.path < $1.path }
        } catch let error as MockCDNError {
            throw error
        } catch {
            let failure = error as? FileSystemError
            let errno = Self.systemError(of: error)
            let reason =
                switch failure?.code {
                case _ where errno == EROFS: "the file system is read-only"
                case .notFound?, .invalidArgument?: "a folder above it is missing or is not a folder"
                case .permissionDenied?: "permission denied"
                case .fileAlreadyExists?, .notEmpty?: "something other than a folder is in the way"
                case .unavailable?: "the disk is full"
                default: "it cannot be created or read"
                }
            throw MockCDNError.storageFailure("cannot open the data directory \(directory) (--data-dir): \(reason)")
        }
    }

    public func put<Body: AsyncSequence>(
        _ key: ObjectKey,
        body: Body,
        maxBytes: Int,
        digest: ObjectIntake.Digest,
        attributes: (ObjectIntake.Summary) async throws -> ObjectAttributes
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer {
        let blob = Self.newIdentifier()
        let blobTemporary = self.temporary.appending(blob)
        let metaTemporary = self.temporary.appending(blob + ".json")
        var committed = false
        do {
            var intake = ObjectIntake(maxBytes: maxBytes, digest: digest)
            try await FileSystem.shared.withFileHandle(forWritingAt: blobTemporary) { handle in
                // Counted and hashed on the way in, written in large writes: the bytes are read once.
                _ = try await BlobWriter.write(body, to: handle, capacity: Self.writeBufferLength) { chunk in
                    try intake.take(chunk)
                }
                // The object's one fsync of its bytes.
                try await handle.synchronize()
            }
            let attributes = try await attributes(intake.finish())
            let record = Record(blob: blob, metadata: intake.metadata(for: key, attributes: attributes))
            try await FileSystem.shared.replaceItem(at: self.blobs.appending(blob), withItemAt: blobTemporary)
            // The blob's name must be durable before any metadata names it.
            try await Self.synchronizeDirectory(self.blobs)
            try await Self.writeSynchronized(try Self.encode(record), to: metaTemporary)
            let replaced = try await self.commit { index in
                try Self.renameFile(metaTemporary, to: self.metaPath(for: key))
                defer { index[key] = record }
                return index[key]
            }
            committed = true
            try await Self.synchronizeDirectory(self.meta)
            if let replaced {
                await Self.removeLeftover(self.blobs.appending(replaced.blob))
            }
            return record.metadata
        } catch {
            // Once committed the blob belongs to the object: only temp files may go.
            let leftovers =
                committed
                ? [blobTemporary, metaTemporary] : [blobTemporary, metaTemporary, self.blobs.appending(blob)]
            for leftover in leftovers {
                await Self.removeLeftover(leftover)
            }
            throw self.byCause(error)
        }
    }

    /// A failure to write under the data directory, named by its cause: a full disk is
    /// `MockCDNError.insufficientStorage` (507), a folder the server may not write is a `storageFailure`
    /// (503) naming it; anything else is left as it is. Nothing of the object is kept either way, and the
    /// next write tries again: once the cause is gone, it succeeds with no restart.
    private func byCause(_ error: any Error) -> any Error {
        switch Self.systemError(of: error) {
        case ENOSPC?, EDQUOT?:
            MockCDNError.insufficientStorage("insufficient storage: the data directory is full")
        case EACCES?, EPERM?:
            MockCDNError.storageFailure("the data directory \(self.directory) cannot be written: permission denied")
        case EROFS?:
            MockCDNError.storageFailure("the data directory \(self.directory) is on a read-only file system")
        default:
            error
        }
    }

    /// The errno behind a file-system error, looking through the errors it wraps.
    static func systemError(of error: any Error) -> Int32? {
        var next: (any Error)? = error
        while let current = next {
            if let call = current as? FileSystemError.SystemCallError { return call.errno.rawValue }
            next = (current as? FileSystemError)?.cause
        }
        return nil
    }

    public func metadata(for key: ObjectKey) async throws -> ObjectMetadata? {
        self.index.withLock { $0[key]?.metadata }
    }

    public func read(
        _ key: ObjectKey,
        range: Range<Int>?,
        into consumer: (ByteBuffer) async throws -> Void
    ) async throws {
        guard let record = self.index.withLock({ $0[key] }) else { throw MockCDNError.objectNotFound }
        let range = try (range ?? 0..<record.metadata.size).validated(within: record.metadata.size)
        guard !range.isEmpty else { return }
        do {
            try await self.withBlob(record) { handle in
                let offsets = Int64(range.lowerBound)..<Int64(range.upperBound)
                for try await chunk in handle.readChunks(in: offsets, chunkLength: Self.chunkLength) {
                    try await consumer(chunk)
                }
            }
        } catch let error as FileSystemError where error.code == .notFound {
            // Deleted between the index lookup and the open.
            throw MockCDNError.objectNotFound
        } catch let error as FileSystemError {
            // The detail reaches clients: it names the key, not the folder.
            throw MockCDNError.storageFailure("cannot read the stored bytes of \(key) (\(error.code))")
        }
    }

    @discardableResult
    public func updateMetadata(
        _ key: ObjectKey,
        _ change: (inout ObjectMetadata) -> Void
    ) async throws -> ObjectMetadata {
        guard var changed = self.index.withLock({ $0[key] }) else { throw MockCDNError.objectNotFound }
        change(&changed.metadata)
        let record = changed
        let metaTemporary = self.temporary.appending(Self.newIdentifier() + ".json")
        do {
            try await Self.writeSynchronized(try Self.encode(record), to: metaTemporary)
            try await self.commit { index in
                // A put or delete that committed meanwhile wins; this edit was for the object it replaced.
                guard index[key]?.blob == record.blob else { throw MockCDNError.objectNotFound }
                try Self.renameFile(metaTemporary, to: self.metaPath(for: key))
                index[key] = record
            }
            try await Self.synchronizeDirectory(self.meta)
            return record.metadata
        } catch {
            await Self.removeLeftover(metaTemporary)
            throw error
        }
    }

    @discardableResult
    public func delete(_ key: ObjectKey) async throws -> Bool {
        let removed = try await self.commit { index -> Record? in
            guard let record = index[key] else { return nil }
            // Unlinking the metadata is the commit; the blob is only garbage after that.
            guard unlink(self.metaPath(for: key).string) == 0 || errno == ENOENT else {
                throw MockCDNError.storageFailure("cannot delete \(key): errno \(errno)")
            }
            index[key] = nil
            return record
        }
        guard let removed else { return false }
        try await Self.synchronizeDirectory(self.meta)
        await Self.removeLeftover(self.blobs.appending(removed.blob))
        return true
    }

    public func list(prefix: String) async throws -> [ObjectMetadata] {
        self.index.withLock { index in
            index.values.filter { $0.key.rawValue.hasBytePrefix(prefix) }.sorted { $0.key < $1.key }
                .map(\.value.metadata)
        }
    }

    public func keys(prefix: String, after: String?, limit: Int) async throws -> [ObjectKey] {
        self.index.withLock { Array($0.keys(prefix: prefix, after: after, limit: limit)) }
    }

    // MARK: - Helpers

    /// Opens the blob of `record` for reading, and checks it is still the file the store wrote.
    ///
    /// The open is relative to a handle on `blobs/`, which NIO makes non-blocking: a FIFO put in the blob's
    /// place cannot hang the thread; `O_NOFOLLOW` refuses a symbolic link, so another file's bytes are
    /// never served as the object's.
    ///
    /// - Parameters:
    ///   - record: the object's record.
    ///   - body: reads the open blob.
    /// - Throws: `MockCDNError.storageFailure` when the blob is not a regular file of the object's size;
    ///   `FileSystemError` when it cannot be opened; what `body` throws.
    private func withBlob(
        _ record: Record,
        _ body: (ReadFileHandle) async throws -> Void
    ) async throws {
        try await FileSystem.shared.withDirectoryHandle(atPath: self.blobs, options: Self.directoryOptions) { folder in
            try await folder.withFileHandle(forReadingAt: FilePath(record.blob), options: Self.readOptions) { handle in
                let info = try await handle.info()
                guard info.type == .regular, info.size == Int64(record.metadata.size) else {
                    throw MockCDNError.storageFailure(
                        "the stored bytes of \(record.metadata.key) were changed outside the store"
                    )
                }
                try await body(handle)
            }
        }
    }

    /// Opens a file without following a symbolic link in its place.
    static let readOptions = OpenOptions.Read(followSymbolicLinks: false, closeOnExec: true)

    /// Opens a folder of the store without following a symbolic link in its place.
    static let directoryOptions = OpenOptions.Directory(followSymbolicLinks: false, closeOnExec: true)

    /// Runs a commit step (a rename or unlink) while holding the index lock, so the index and the metadata
    /// files change in the same order under concurrent writers of one key. It runs on NIO's thread pool
    /// (`BlockingWork`): a file system call can block (a journal commit, a slow disk).
    private func commit<Result: Sendable>(
        _ body: @escaping @Sendable (inout OrderedIndex<Record>) throws -> Result
    ) async throws -> Result {
        try await BlockingWork.run { try self.index.withLock { try body(&$0) } }
    }

    private func metaPath(for key: ObjectKey) -> FilePath {
        Self.metaPath(in: self.meta, for: key)
    }

    static func metaPath(in folder: FilePath, for key: ObjectKey) -> FilePath {
        folder.appending(metaName(for: key))
    }

    /// The name of a key's metadata file: fixed length, whatever the key.
    static func metaName(for key: ObjectKey) -> String {
        Digest.sha256(key.rawValue).hexString + ".json"
    }

    private static func newIdentifier() -> String {
        SecureBytes.random(count: 16).hexString
    }

    /// Removes a file nothing refers to any more. A failure only leaves garbage that the next open cleans.
    ///
    /// Never recursive: the store only writes files, so a folder in their place is not the store's to empty.
    static func removeLeftover(_ path: FilePath) async {
        _ = try? await FileSystem.shared.removeItem(at: path, recursively: false)
    }

    /// A record as its metadata file holds it.
    ///
    /// - Throws: `MockCDNError.storageFailure` past the bound opening the store reads, rather than store an
    ///   object that the next start would skip.
    private static func encode(_ record: Record) throws -> Data {
        let data = try JSONEncoder().encode(record)
        guard data.count <= Self.maximumRecordLength else {
            throw MockCDNError.storageFailure(
                "the metadata of \(record.metadata.key) is larger than \(Self.maximumRecordLength) bytes"
            )
        }
        return data
    }

    private static func renameFile(_ source: FilePath, to destination: FilePath) throws {
        guard rename(source.string, destination.string) == 0 else {
            throw MockCDNError.storageFailure("cannot rename into \(destination): errno \(errno)")
        }
    }

    private static func writeSynchronized(_ data: Data, to path: FilePath) async throws {
        try await FileSystem.shared.withFileHandle(forWritingAt: path) { handle in
            _ = try await handle.write(contentsOf: data, toAbsoluteOffset: 0)
            try await handle.synchronize()
        }
    }

    /// Makes renames and unlinks in `folder` durable.
    private static func synchronizeDirectory(_ folder: FilePath) async throws {
        try await FileSystem.shared.withDirectoryHandle(atPath: folder) { try await $0.synchronize() }
    }
}
