import NIOCore
import Synchronization

/// Objects in memory: the default store, gone when the process ends.
public final class MemoryObjectStore: ObjectStore {
    private struct Entry {
        var metadata: ObjectMetadata
        var bytes: ByteBuffer
    }

    private let entries = Mutex<[ObjectKey: Entry]>([:])

    public init() {}

    public func put<Body: AsyncSequence>(
        _ key: ObjectKey,
        body: Body,
        attributes: ObjectAttributes,
        maxBytes: Int
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer {
        var intake = ObjectIntake(maxBytes: maxBytes)
        var bytes = ByteBuffer()
        for try await chunk in body {
            try intake.take(chunk)
            var chunk = chunk
            bytes.writeBuffer(&chunk)
        }
        let metadata = intake.metadata(for: key, attributes: attributes)
        self.entries.withLock { $0[key] = Entry(metadata: metadata, bytes: bytes) }
        return metadata
    }

    public func metadata(for key: ObjectKey) async throws -> ObjectMetadata? {
        self.entries.withLock { $0[key]?.metadata }
    }

    public func read(
        _ key: ObjectKey,
        range: Range<Int>?,
        into consumer: (ByteBuffer) async throws -> Void
    ) async throws {
        guard let bytes = self.entries.withLock({ $0[key]?.bytes }) else { throw MockCDNError.objectNotFound }
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
        try self.entries.withLock { entries in
            guard var entry = entries[key] else { throw MockCDNError.objectNotFound }
            change(&entry.metadata)
            entries[key] = entry
            return entry.metadata
        }
    }

    @discardableResult
    public func delete(_ key: ObjectKey) async throws -> Bool {
        self.entries.withLock { $0.removeValue(forKey: key) != nil }
    }

    public func list(prefix: String) async throws -> [ObjectMetadata] {
        self.entries.withLock { entries in
            entries.filter { $0.key.rawValue.hasPrefix(prefix) }.sorted { $0.key < $1.key }.map(\.value.metadata)
        }
    }
}
