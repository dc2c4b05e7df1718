import Foundation
import NIOCore
import Synchronization
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resized variants, keyed by object, object ETag and normalised transform: a memory LRU bounded in bytes,
/// with a data directory a copy on disk, also an LRU bounded in bytes, that survives restarts, and optionally
/// a copy in a store that several instances share (`SharedVariantStore`), consulted before rendering. Identical
/// requests that arrive together compute once. Deleting an object drops its variants, including one still
/// being rendered: that render's caller gets it, but the cache never keeps it.
public final class VariantCache: Sendable {
    /// What a variant is cached under: its object's key, that object's ETag (a replaced object has new
    /// variants) and the transform, as values. A lookup hashes them where they are, with no key text joined
    /// and no transform spelled out (those were a twentieth of a cached variant's read).
    public struct Key: Hashable, Sendable {
        public let object: String
        public let etag: String
        /// Canonical: `crop` is `.center` unless the resize crops, as `ImageTransform.normalized` spells it.
        public let transform: ImageTransform

        public init(object: String, etag: String, transform: ImageTransform) {
            self.object = object
            self.etag = etag
            var canonical = transform
            if canonical.resize != .crop { canonical.crop = .center }
            self.transform = canonical
        }

        /// The key as text: what names its file (so files written by earlier versions are still found).
        var text: String { self.object + "\n" + self.etag + "\n" + self.transform.normalized }
    }

    private struct Entry {
        let variant: ImageVariant
        var lastUse: UInt64
        /// Its file's name, so a memory hit also keeps the disk copy recent.
        let fileName: String
    }

    /// A variant file in the cache's folder.
    private struct DiskFile {
        let size: Int
        var lastUse: UInt64
    }

    /// A render in progress. `drop(object:)` and `removeAll()` take it out of `inFlight`; when it finishes it
    /// stores its variant only if it is still there under the same `id`. A variant of an object deleted
    /// meanwhile is therefore never kept, and a newer render of the same key is never mistaken for it.
    private struct Flight {
        let id: UInt64
        let task: Task<ImageVariant, any Error>
        /// Requests waiting for it; when the last one goes away, the render is cancelled.
        var waiters = 1
    }

    /// Where a finished render's variant comes from, for the disk copy.
    private enum Source {
        /// Rendered now and written to this temporary file (nil when not written).
        case rendered(temporary: String?)
        /// Read from its file on disk.
        case disk
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var keysByObject: [String: Set<Key>] = [:]
        var bytes = 0
        /// Variant files by name, and their total size.
        var files: [String: DiskFile] = [:]
        var diskBytes = 0
        var clock: UInt64 = 0
        var lastFlight: UInt64 = 0
        var inFlight: [Key: Flight] = [:]
    }

    /// The most bytes of variants kept in memory; 0 turns the cache off (memory and disk).
    public let memoryLimit: Int
    /// The most bytes of variant files kept on disk (each file is the content type, a newline and the bytes).
    public let diskLimit: Int
    private let directory: URL?
    private let shared: (any SharedVariantStore)?
    private let state: Mutex<State>
    private let onLookup: @Sendable (_ hit: Bool) -> Void

    /// Creates the cache; with a directory, indexes the variant files a previous run left there.
    ///
    /// - Parameters:
    ///   - memoryLimit: bytes kept in memory; 0 disables caching.
    ///   - directory: where variants are also written (`{data-dir}/variants`), or nil. The cache owns the
    ///     folder: anything in it that is not a variant file it wrote is removed.
    ///   - diskLimit: bytes of variant files kept in `directory`; nil for `memoryLimit`. One budget for
    ///     both is what `variant_cache_bytes` has always promised, and the disk copy only exists to refill
    ///     memory after a restart, so it needs room for what memory holds and no more.
    ///   - shared: a store several instances share, looked in before rendering and given every render; it
    ///     bounds its own size (a bucket lifecycle rule), and drops an object's variants with the object.
    ///   - onLookup: told of every lookup of an enabled cache: hit (memory, disk, shared store, or a render
    ///     another request started) or miss (this request renders); for metrics.
    public init(
        memoryLimit: Int,
        directory: String?,
        diskLimit: Int? = nil,
        shared: (any SharedVariantStore)? = nil,
        onLookup: @escaping @Sendable (_ hit: Bool) -> Void = { _ in }
    ) {
        self.memoryLimit = memoryLimit
        self.diskLimit = diskLimit ?? memoryLimit
        self.directory = directory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        self.shared = shared
        self.onLookup = onLookup
        var state = State()
        if let folder = self.directory, memoryLimit > 0 {
            Self.indexFiles(in: folder, diskLimit: self.diskLimit, into: &state)
        }
        self.state = Mutex(state)
    }

    public var isEnabled: Bool { self.memoryLimit > 0 }

    /// Counts for metrics and tests.
    public var count: Int { self.state.withLock { $0.entries.count } }

    /// Bytes of variant files on disk, as the cache counts them.
    public var diskBytes: Int { self.state.withLock { $0.diskBytes } }

    /// The cached variant, or the one `render` makes (once, however many ask at the same time).
    ///
    /// - Parameters:
    ///   - key: the variant's key; its ETag makes sure a replaced object never serves an old variant.
    ///   - render: makes the variant; runs at most once per key at a time.
    /// - Returns: the variant.
    /// - Throws: what `render` throws.
    public func variant(
        _ key: Key,
        render: @escaping @Sendable () async throws -> ImageVariant
    ) async throws -> ImageVariant {
        guard self.isEnabled else { return try await render() }
        enum Lookup {
            case hit(ImageVariant)
            case wait(Task<ImageVariant, any Error>, id: UInt64, started: Bool)
        }
        let lookup: Lookup = self.state.withLock { state in
            if let variant = Self.use(key, in: &state) { return .hit(variant) }
            if let flight = state.inFlight[key] {
                state.inFlight[key]?.waiters += 1
                return .wait(flight.task, id: flight.id, started: false)
            }
            state.lastFlight += 1
            let id = state.lastFlight
            // Without a folder or a shared store, nothing is named: skip the two hashes.
            let fileName =
                self.directory == nil && self.shared == nil ? "" : Self.fileName(of: key)
            let storedSize = state.files[fileName]?.size
            let task = Task {
                try await self.fill(
                    key: key,
                    fileName: fileName,
                    storedSize: storedSize,
                    id: id,
                    render: render
                )
            }
            state.inFlight[key] = Flight(id: id, task: task)
            return .wait(task, id: id, started: true)
        }
        switch lookup {
        case .hit(let variant):
            self.onLookup(true)
            return variant
        case .wait(let task, let id, let started):
            if !started { self.onLookup(true) }
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                self.leave(key: key, id: id)
            }
        }
    }

    /// The variant if it is in memory, without rendering; a hit counts as a use and as a hit for metrics,
    /// a miss counts nothing (the `variant` call that follows does).
    ///
    /// - Parameter key: the variant's key.
    /// - Returns: the variant, or nil when it would have to be read from disk or rendered.
    public func cached(_ key: Key) -> ImageVariant? {
        let hit = self.recent(key)
        if hit != nil { self.countHit() }
        return hit
    }

    /// The variant if it is in memory, marked as just used but not counted for metrics. The fast read path
    /// (`FastReads`) looks once, before it checks the read's credential, and calls `countHit` once that
    /// holds, so that a read it hands to the router after all is counted once, by the router. (A refused
    /// read of a cached variant therefore also keeps it recent; only eviction order can tell.)
    ///
    /// - Parameter key: the variant's key.
    /// - Returns: the variant, or nil when it is not in memory.
    public func recent(_ key: Key) -> ImageVariant? {
        guard self.isEnabled else { return nil }
        return self.state.withLock { state in Self.use(key, in: &state) }
    }

    /// Counts a hit for metrics: a variant `recent` gave was served.
    public func countHit() {
        self.onLookup(true)
    }

    /// The variant in memory under `key`, marked as just used (in memory and on disk).
    private static func use(_ key: Key, in state: inout State) -> ImageVariant? {
        state.clock += 1
        guard var entry = state.entries[key] else { return nil }
        entry.lastUse = state.clock
        state.entries[key] = entry
        state.files[entry.fileName]?.lastUse = state.clock
        return entry.variant
    }

    /// A waiting request went away; the last one to go cancels the render, which nobody would see.
    private func leave(key: Key, id: UInt64) {
        let orphan: Task<ImageVariant, any Error>? = self.state.withLock { state in
            guard var flight = state.inFlight[key], flight.id == id else { return nil }
            flight.waiters -= 1
            guard flight.waiters == 0 else {
                state.inFlight[key] = flight
                return nil
            }
            state.inFlight[key] = nil
            return flight.task
        }
        orphan?.cancel()
    }

    /// Forgets every variant of `object`, in memory and on disk; a render of it still running will not be
    /// kept when it finishes.
    public func drop(object: String) async {
        let filePrefix = Self.objectHash(object) + "-"
        await self.withFiles { state in
            for key in state.keysByObject.removeValue(forKey: object) ?? [] {
                if let entry = state.entries.removeValue(forKey: key) {
                    state.bytes -= Self.memoryCost(of: entry.variant, key: key)
                }
            }
            for key in state.inFlight.keys where key.object == object {
                state.inFlight[key] = nil
            }
            for name in state.files.keys where name.hasPrefix(filePrefix) {
                self.removeFile(name, from: &state)
            }
        }
        if let shared = self.shared {
            // Best effort and not awaited: a variant left behind is never served for another object.
            Task { await shared.remove(namesStartingWith: filePrefix) }
        }
    }

    /// Forgets everything (`/_mockcdn/reset`); renders still running will not be kept when they finish.
    public func removeAll() async {
        await self.withFiles { state in
            state.entries = [:]
            state.keysByObject = [:]
            state.bytes = 0
            state.inFlight = [:]
            for name in state.files.keys {
                self.removeFile(name, from: &state)
            }
        }
    }

    // MARK: - Filling

    /// The body of a render's task: the disk copy when there is one, else the shared store's, else `render`
    /// (whose result goes to the shared store too); then stores the result unless the render was dropped
    /// meanwhile.
    private func fill(
        key: Key,
        fileName: String,
        storedSize: Int?,
        id: UInt64,
        render: @Sendable () async throws -> ImageVariant
    ) async throws -> ImageVariant {
        do {
            if let storedSize, let folder = self.directory {
                let path = folder.appendingPathComponent(fileName).path
                if let stored = await self.onFileThread({ Self.readFile(path, size: storedSize) }) {
                    self.onLookup(true)
                    await self.commit(stored, key: key, fileName: fileName, id: id, source: .disk)
                    return stored
                }
                // Damaged or changed outside the cache: forget it and render afresh. Unless this render was
                // dropped: then the file may already be a newer render's.
                await self.withFiles { state in
                    if state.inFlight[key]?.id == id { self.removeFile(fileName, from: &state) }
                }
            }
            let variant: ImageVariant
            if let shared = self.shared, let stored = await shared.load(fileName) {
                self.onLookup(true)
                variant = stored
            } else {
                self.onLookup(false)
                variant = try await render()
                await self.shared?.save(variant, as: fileName)
            }
            let temporary = await self.onFileThread { self.writeTemporaryFile(variant) }
            await self.commit(
                variant,
                key: key,
                fileName: fileName,
                id: id,
                source: .rendered(temporary: temporary)
            )
            return variant
        } catch {
            self.state.withLock { state in
                if state.inFlight[key]?.id == id { state.inFlight[key] = nil }
            }
            throw error
        }
    }

    /// Stores a finished render in memory and, renamed into place, on disk; or, when `drop(object:)` or
    /// `removeAll()` took the render out of `inFlight` meanwhile, only removes its temporary file.
    ///
    /// The rename and unlinks run under the lock, so the files change in the same order as the index: a drop
    /// can never miss a file that a render is moving into place.
    private func commit(
        _ variant: ImageVariant,
        key: Key,
        fileName: String,
        id: UInt64,
        source: Source
    ) async {
        await self.withFiles { state in
            guard state.inFlight[key]?.id == id else {
                if case .rendered(let temporary?) = source { unlink(temporary) }
                return
            }
            state.inFlight[key] = nil
            state.clock += 1
            switch source {
            case .disk:
                state.files[fileName]?.lastUse = state.clock
            case .rendered(let temporary?):
                self.moveIntoPlace(temporary, as: fileName, from: &state)
            case .rendered(nil):
                break
            }
            self.storeInMemory(variant, key: key, fileName: fileName, state: &state)
        }
    }

    /// Runs `body` under the lock; with a folder, on NIO's thread pool, since the renames and unlinks it may
    /// make can block, and the cooperative pool that awaits it has as few threads as the machine has cores.
    private func withFiles<Result: Sendable>(_ body: @escaping @Sendable (inout State) -> Result) async -> Result {
        await self.onFileThread { self.state.withLock { body(&$0) } }
    }

    /// Runs file work on NIO's thread pool when the cache has a folder (`BlockingWork`); in place without one,
    /// where there is no file to touch.
    private func onFileThread<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        guard self.directory != nil else { return work() }
        return await BlockingWork.run(work)
    }

    private func storeInMemory(
        _ variant: ImageVariant,
        key: Key,
        fileName: String,
        state: inout State
    ) {
        let cost = Self.memoryCost(of: variant, key: key)
        guard state.entries[key] == nil, cost <= self.memoryLimit else { return }
        state.entries[key] = Entry(variant: variant, lastUse: state.clock, fileName: fileName)
        state.keysByObject[key.object, default: []].insert(key)
        state.bytes += cost
        guard state.bytes > self.memoryLimit else { return }
        // Evict least recently used entries down to 90% of the limit, so eviction is not paid per insert.
        for (oldKey, entry) in state.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
            guard state.bytes > self.memoryLimit / 10 * 9 else { break }
            state.entries[oldKey] = nil
            state.bytes -= Self.memoryCost(of: entry.variant, key: oldKey)
            state.keysByObject[oldKey.object]?.remove(oldKey)
            if state.keysByObject[oldKey.object]?.isEmpty == true { state.keysByObject[oldKey.object] = nil }
        }
    }

    /// What an entry costs the memory budget: the variant's bytes, its key's text (as much as its strings, kept
    /// twice: by key and by object) and `entryOverhead`, so that many small variants cannot hold more than
    /// `memoryLimit` in bookkeeping.
    static func memoryCost(of variant: ImageVariant, key: Key) -> Int {
        variant.bytes.readableBytes + 2 * key.text.utf8.count + Self.entryOverhead
    }

    /// An entry's fixed bookkeeping, rounded up: its slots in two dictionaries, the entry, the file name (65
    /// bytes), the content type and the ETag.
    static let entryOverhead = 256

    // MARK: - Disk

    /// A variant file's name: the object's hash first, so `drop(object:)` finds an object's files by prefix
    /// (also those a previous run wrote), then the key's.
    private static func fileName(of key: Key) -> String {
        Self.objectHash(key.object) + "-" + Digest.sha256(key.text).prefix(16).hexString
    }

    private static func objectHash(_ object: String) -> String {
        Digest.sha256(object).prefix(16).hexString
    }

    /// Whether `name` is one `fileName(object:key:)` makes: two 32-digit lower-case hex hashes and a dash.
    private static func isVariantFileName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count == 65, bytes[32] == UInt8(ascii: "-") else { return false }
        return bytes.enumerated().allSatisfy { index, byte in
            index == 32 || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        }
    }

    /// Renames `temporary` to `name` and counts it, evicting least recently used files past `diskLimit`.
    private func moveIntoPlace(_ temporary: String, as name: String, from state: inout State) {
        guard let folder = self.directory else { return }
        let size = Self.fileSize(temporary)
        guard let size, rename(temporary, folder.appendingPathComponent(name).path) == 0 else {
            unlink(temporary)
            return
        }
        if let replaced = state.files.updateValue(DiskFile(size: size, lastUse: state.clock), forKey: name) {
            state.diskBytes -= replaced.size
        }
        state.diskBytes += size
        guard state.diskBytes > self.diskLimit else { return }
        // Down to 90% of the limit, as in memory; the file just written is the most recent and stays, and
        // it alone is within the limit, so the total ends within it.
        for (oldName, _) in state.files.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
            guard state.diskBytes > self.diskLimit / 10 * 9, oldName != name else { break }
            self.removeFile(oldName, from: &state)
        }
    }

    /// Unlinks a variant file and forgets it.
    private func removeFile(_ name: String, from state: inout State) {
        guard let file = state.files.removeValue(forKey: name) else { return }
        state.diskBytes -= file.size
        if let folder = self.directory { unlink(folder.appendingPathComponent(name).path) }
    }

    /// Writes a variant to a new temporary file in the cache's folder: the content type, a newline, then
    /// the bytes. Renamed into place by `commit`, so a crash never leaves half a variant under its name.
    ///
    /// - Returns: the file's path, or nil when there is no folder, the file would not fit in `diskLimit`,
    ///   or the write failed.
    private func writeTemporaryFile(_ variant: ImageVariant) -> String? {
        guard let folder = self.directory else { return nil }
        let data = Data(variant.stored.readableBytesView)
        guard data.count <= self.diskLimit else { return nil }
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(".tmp-" + SecureBytes.random(count: 8).hexString)
        do {
            // A new name, created exclusively: never a file or link someone put there.
            try data.write(to: file, options: .withoutOverwriting)
            return file.path
        } catch {
            try? FileManager.default.removeItem(at: file)
            return nil
        }
    }

    /// Reads a variant file, if it is still the regular file of `size` bytes the cache wrote: never another
    /// file's bytes through a link put in its place, nor a hang on a FIFO (`RegularFile`).
    private static func readFile(_ path: String, size: Int) -> ImageVariant? {
        guard let bytes = try? RegularFile.bytes(at: path, maximumSize: size), bytes.readableBytes == size else {
            return nil
        }
        return ImageVariant(stored: bytes)
    }

    /// The size of a regular file, without following a link.
    private static func fileSize(_ path: String) -> Int? {
        guard let status = Self.linkStatus(path) else { return nil }
        let info = FileInfo(platformSpecificStatus: status)
        return info.type == .regular ? Int(info.size) : nil
    }

    /// `lstat` of a path, nil when it fails. The buffer is filled by `lstat`: `stat()`'s zero initializer is
    /// attributed to whichever C module first loaded the header (Dispatch's, in a release build), which
    /// `MemberImportVisibility` then asks to be imported.
    private static func linkStatus(_ path: String) -> stat? {
        withUnsafeTemporaryAllocation(of: stat.self, capacity: 1) { buffer in
            lstat(path, buffer.baseAddress!) == 0 ? buffer[0] : nil
        }
    }

    /// Indexes the variant files a previous run left, oldest write first, and removes everything else: temp
    /// files of writes that never finished, the older one-folder-per-object layout, and anything not a
    /// regular file (a link is removed, never followed). Trims to `diskLimit`, least recent first.
    private static func indexFiles(in folder: URL, diskLimit: Int, into state: inout State) {
        let fileManager = FileManager.default
        try? fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        var found: [(name: String, size: Int, modified: FileInfo.Timespec)] = []
        for name in (try? fileManager.contentsOfDirectory(atPath: folder.path)) ?? [] {
            let path = folder.appendingPathComponent(name).path
            if isVariantFileName(name), let status = Self.linkStatus(path) {
                let info = FileInfo(platformSpecificStatus: status)
                if info.type == .regular, info.size <= Int64(diskLimit) {
                    found.append((name, Int(info.size), info.lastDataModificationTime))
                    continue
                }
            }
            // FileManager removes a link itself, not its target, and does not follow links inside a folder.
            try? fileManager.removeItem(atPath: path)
        }
        found.sort { ($0.modified.seconds, $0.modified.nanoseconds) < ($1.modified.seconds, $1.modified.nanoseconds) }
        for file in found {
            state.clock += 1
            state.files[file.name] = DiskFile(size: file.size, lastUse: state.clock)
            state.diskBytes += file.size
        }
        for file in found where state.diskBytes > diskLimit {
            state.files[file.name] = nil
            state.diskBytes -= file.size
            unlink(folder.appendingPathComponent(file.name).path)
        }
    }
}
