import NIOCore
import Synchronization

/// Objects in memory: the default store, gone when the process ends.
///
/// The bytes held are bounded by a budget: without one, enough large uploads get the process killed for
/// lack of memory, taking every stored object with it.
public final class MemoryObjectStore: ObjectStore {
    private struct Entry {
        var metadata: ObjectMetadata
        var bytes: ByteBuffer
    }

    private struct State {
        var entries = OrderedIndex<Entry>()
        /// Bytes of stored objects plus bytes that writes in progress have taken so far.
        var used = 0
    }

    /// The budget when none is given: room for a test run's media, well below a laptop's or CI runner's memory.
    public static let defaultByteBudget = 1 << 30

    /// The most bytes of object bodies held at once, stored and still arriving together.
    public let byteBudget: Int
    private let state = Mutex(State())

    /// - Parameter byteBudget: the most bytes of object bodies held at once; a write that would go past it
    ///   fails with `MockCDNError.insufficientStorage`.
    public init(byteBudget: Int = MemoryObjectStore.defaultByteBudget) {
        self.byteBudget = byteBudget
    }

    /// Bytes held now: stored objects and writes in progress.
    public var usedBytes: Int { self.state.withLock { $0.used } }

    public func put<Body: AsyncSequence>(
        _ key: ObjectKey,
        body: Body,
        maxBytes: Int,
        digest: ObjectIntake.Digest,
        attributes: (ObjectIntake.Summary) async throws -> ObjectAttributes
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer {
        var intake = ObjectIntake(maxBytes: maxBytes, digest: digest)
        var bytes = ByteBuffer()
        // Bytes are taken from the budget chunk by chunk as they arrive, not once the body is complete: writes
        // that stream together cannot each pass a check and then overshoot the budget between them.
        var reserved = 0
        let attributesAtCommit: ObjectAttributes
        do {
            for try await chunk in body {
                try intake.take(chunk)
                try self.reserve(chunk.readableBytes)
                reserved += chunk.readableBytes
                var chunk = chunk
                bytes.writeBuffer(&chunk)
            }
            attributesAtCommit = try await attributes(intake.finish())
        } catch {
            self.release(reserved)
            throw error
        }
        let metadata = intake.metadata(for: key, attributes: attributesAtCommit)
        self.state.withLock { state in
            // The replaced object's bytes go back to the budget; the new ones were taken while streaming.
            if let replaced = state.entries.updateValue(Entry(metadata: metadata, bytes: bytes), forKey: key) {
                state.used -= replaced.bytes.readableBytes
            }
        }
        return metadata
    }

    public func metadata(for key: ObjectKey) async throws -> ObjectMetadata? {
        self.state.withLock { $0.entries[key]?.metadata }
    }

    public func resident(_ key: ObjectKey) async throws -> (metadata: ObjectMetadata, bytes: ByteBuffer)? {
        self.residentNow(key)
    }

    public func residentNow(_ key: ObjectKey) -> (metadata: ObjectMetadata, bytes: ByteBuffer)? {
        self.state.withLock { state in state.entries[key].map { ($0.metadata, $0.bytes) } }
    }

    public func read(
        _ key: ObjectKey,
        range: Range<Int>?,
        into consumer: (ByteBuffer) async throws -> Void
    ) async throws {
        guard let bytes = self.state.withLock({ $0.entries[key]?.bytes }) else { throw MockCDNError.objectNotFound }
        let range = try (range ?? 0..<bytes.readableBytes).validated(within: bytes.readableBytes)
        guard !range.isEmpty else { return }
        // A slice shares storage with the stored buffer: nothing is copied.
        try await consumer(bytes.getSlice(at: bytes.readerIndex + range.lowerBound, length: range.count)!)
    }

    @discardableResult
    public func updateMetadata(
        _ key: ObjectKey,
        _ change: (inout ObjectMetadata) -> Void
    ) async throws -> ObjectMetadata {
        try self.state.withLock { state in
            guard var entry = state.entries[key] else { throw MockCDNError.objectNotFound }
            change(&entry.metadata)
            state.entries[key] = entry
            return entry.metadata
        }
    }

    @discardableResult
    public func delete(_ key: ObjectKey) async throws -> Bool {
        self.state.withLock { state in
            guard let removed = state.entries.removeValue(forKey: key) else { return false }
            state.used -= removed.bytes.readableBytes
            return true
        }
    }

    public func list(prefix: String) async throws -> [ObjectMetadata] {
        self.state.withLock { state in
            state.entries.values.filter { $0.key.rawValue.hasBytePrefix(prefix) }.sorted { $0.key < $1.key }
                .map(\.value.metadata)
        }
    }

    public func keys(prefix: String, after: String?, limit: Int) async throws -> [ObjectKey] {
        self.state.withLock { Array($0.entries.keys(prefix: prefix, after: after, limit: limit)) }
    }

    // MARK: - Budget

    /// Takes `count` bytes from the budget for a write in progress.
    ///
    /// - Parameter count: the bytes of the chunk that just arrived.
    /// - Throws: `MockCDNError.insufficientStorage` when they do not fit; nothing is taken then.
    private func reserve(_ count: Int) throws {
        try self.state.withLock { state in
            guard count <= self.byteBudget - state.used else {
                throw MockCDNError.insufficientStorage(
                    "the in-memory store's budget of \(self.byteBudget) bytes is used up"
                )
            }
            state.used += count
        }
    }

    /// Gives back what a failed write had taken.
    private func release(_ count: Int) {
        self.state.withLock { $0.used -= count }
    }
}
