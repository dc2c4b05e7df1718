import Foundation
import NIOCore
import Synchronization

/// Resized variants, keyed by object, object ETag and normalised transform: a memory LRU bounded in bytes,
/// and with a data directory a copy on disk that survives restarts. Identical requests that arrive
/// together compute once. Deleting an object drops its variants.
public final class VariantCache: Sendable {
    private struct Entry {
        let variant: ImageVariant
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var keysByObject: [String: Set<String>] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        var inFlight: [String: Task<ImageVariant, any Error>] = [:]
    }

    /// The most bytes of variants kept in memory; 0 turns the cache off (memory and disk).
    public let memoryLimit: Int
    private let directory: URL?
    private let state = Mutex(State())
    private let onLookup: @Sendable (_ hit: Bool) -> Void

    /// - Parameters:
    ///   - memoryLimit: bytes kept in memory; 0 disables caching.
    ///   - directory: where variants are also written (`{data-dir}/variants`), or nil.
    ///   - onLookup: told of every lookup of an enabled cache: hit (memory, disk, or a render another
    ///     request started) or miss (this request renders); for metrics.
    public init(memoryLimit: Int, directory: String?, onLookup: @escaping @Sendable (_ hit: Bool) -> Void = { _ in }) {
        self.memoryLimit = memoryLimit
        self.directory = directory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        self.onLookup = onLookup
    }

    public var isEnabled: Bool { self.memoryLimit > 0 }

    /// Counts for metrics and tests.
    public var count: Int { self.state.withLock { $0.entries.count } }

    /// The cached variant, or the one `render` makes (once, however many ask at the same time).
    ///
    /// - Parameters:
    ///   - object: the object's key.
    ///   - etag: the object's ETag, so a replaced object never serves an old variant.
    ///   - transform: the normalised transform.
    ///   - render: makes the variant; runs at most once per key at a time.
    /// - Returns: the variant.
    /// - Throws: what `render` throws.
    public func variant(
        object: String,
        etag: String,
        transform: String,
        render: @escaping @Sendable () async throws -> ImageVariant
    ) async throws -> ImageVariant {
        guard self.isEnabled else { return try await render() }
        let key = object + "\n" + etag + "\n" + transform
        enum Lookup {
            case hit(ImageVariant)
            case wait(Task<ImageVariant, any Error>, started: Bool)
        }
        let lookup: Lookup = self.state.withLock { state in
            state.clock += 1
            if var entry = state.entries[key] {
                entry.lastUse = state.clock
                state.entries[key] = entry
                return .hit(entry.variant)
            }
            if let running = state.inFlight[key] { return .wait(running, started: false) }
            let file = self.file(object: object, key: key)
            let onLookup = self.onLookup
            let running = Task {
                if let file, let stored = Self.readFile(file) {
                    onLookup(true)
                    return stored
                }
                onLookup(false)
                let variant = try await render()
                if let file { Self.writeFile(variant, to: file) }
                return variant
            }
            state.inFlight[key] = running
            return .wait(running, started: true)
        }
        let task: Task<ImageVariant, any Error>
        switch lookup {
        case .hit(let variant):
            self.onLookup(true)
            return variant
        case .wait(let running, let started):
            if !started { self.onLookup(true) }
            task = running
        }
        do {
            let variant = try await task.value
            self.store(variant, key: key, object: object)
            return variant
        } catch {
            _ = self.state.withLock { $0.inFlight.removeValue(forKey: key) }
            throw error
        }
    }

    /// Forgets every variant of `object`, in memory and on disk.
    public func drop(object: String) {
        self.state.withLock { state in
            for key in state.keysByObject.removeValue(forKey: object) ?? [] {
                if let entry = state.entries.removeValue(forKey: key) {
                    state.bytes -= entry.variant.bytes.readableBytes
                }
            }
        }
        if let folder = self.folder(object: object) { try? FileManager.default.removeItem(at: folder) }
    }

    /// Forgets everything (`/_mockcdn/reset`).
    public func removeAll() {
        self.state.withLock { state in
            state.entries = [:]
            state.keysByObject = [:]
            state.bytes = 0
        }
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    private func store(_ variant: ImageVariant, key: String, object: String) {
        self.state.withLock { state in
            state.inFlight[key] = nil
            guard state.entries[key] == nil, variant.bytes.readableBytes <= self.memoryLimit else { return }
            state.clock += 1
            state.entries[key] = Entry(variant: variant, lastUse: state.clock)
            state.keysByObject[object, default: []].insert(key)
            state.bytes += variant.bytes.readableBytes
            guard state.bytes > self.memoryLimit else { return }
            // Evict least recently used entries down to 90% of the limit, so eviction is not paid per insert.
            for (oldKey, entry) in state.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                guard state.bytes > self.memoryLimit / 10 * 9 else { break }
                state.entries[oldKey] = nil
                state.bytes -= entry.variant.bytes.readableBytes
                let owner = String(oldKey.prefix { $0 != "\n" })
                state.keysByObject[owner]?.remove(oldKey)
                if state.keysByObject[owner]?.isEmpty == true { state.keysByObject[owner] = nil }
            }
        }
    }

    // MARK: - Disk

    private func folder(object: String) -> URL? {
        self.directory?.appendingPathComponent(Digest.sha256(object).prefix(16).hexString, isDirectory: true)
    }

    private func file(object: String, key: String) -> URL? {
        self.folder(object: object)?.appendingPathComponent(Digest.sha256(key).prefix(16).hexString)
    }

    /// A variant file: the content type, a newline, then the bytes.
    private static func readFile(_ file: URL) -> ImageVariant? {
        guard let data = try? Data(contentsOf: file), let newline = data.firstIndex(of: UInt8(ascii: "\n")) else {
            return nil
        }
        let contentType = String(decoding: data[data.startIndex..<newline], as: UTF8.self)
        return ImageVariant(bytes: ByteBuffer(bytes: data[(newline + 1)...]), contentType: contentType)
    }

    /// Written to a temporary name and renamed, so a crash never leaves half a variant.
    private static func writeFile(_ variant: ImageVariant, to file: URL) {
        let folder = file.deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var data = Data((variant.contentType + "\n").utf8)
        data.append(contentsOf: variant.bytes.readableBytesView)
        try? data.write(to: file, options: .atomic)
    }
}
