import Foundation
import MockCDNCore
import NIOCore
import Testing

/// The memory store holds at most its byte budget, counted as bodies stream in.
@Suite("MemoryObjectStore budget")
struct MemoryObjectStoreBudgetTests {
    static let attributes = ObjectAttributes(contentType: "application/octet-stream")

    static func key(_ text: String) -> ObjectKey { try! ObjectKey(text) }

    /// `count` bytes in chunks of 64 KiB.
    static func body(_ count: Int) -> AsyncStream<ByteBuffer> {
        AsyncStream { continuation in
            var left = count
            while left > 0 {
                let length = min(left, 64 * 1024)
                continuation.yield(ByteBuffer(repeating: 0x5a, count: length))
                left -= length
            }
            continuation.finish()
        }
    }

    /// Stores `size` bytes under `key`; the size limit is far above the budget, so only the budget stops it.
    static func put(_ store: MemoryObjectStore, _ key: String, _ size: Int) async throws {
        _ = try await store.put(Self.key(key), body: Self.body(size), attributes: Self.attributes, maxBytes: 1 << 30)
    }

    @Test("a put past the budget throws insufficientStorage and keeps nothing; a delete makes room")
    func budget() async throws {
        let store = MemoryObjectStore(byteBudget: 1 << 20)
        let size = 600 * 1024
        try await Self.put(store, "first", size)
        #expect(store.usedBytes == size)
        await #expect(throws: MockCDNError.insufficientStorage) {
            try await Self.put(store, "second", size)
        }
        #expect(try await store.list(prefix: "").map(\.key) == ["first"])
        #expect(try await store.metadata(for: Self.key("second")) == nil)
        #expect(store.usedBytes == size, "the failed put gave back what it had taken")

        #expect(try await store.delete(Self.key("first")))
        #expect(store.usedBytes == 0)
        try await Self.put(store, "second", size)
        #expect(try await store.collect(Self.key("second")).readableBytes == size)
    }

    @Test("replacing an object counts only the new bytes once it is stored; removeAll frees everything")
    func replaceAndRemoveAll() async throws {
        let store = MemoryObjectStore(byteBudget: 1 << 20)
        try await Self.put(store, "a", 400 * 1024)
        // Old and new are both held while the new one streams in: 400 + 500 KiB fits in 1 MiB.
        try await Self.put(store, "a", 500 * 1024)
        #expect(store.usedBytes == 500 * 1024)
        try await store.removeAll()
        #expect(store.usedBytes == 0)
    }

    @Test("puts streaming together never overshoot the budget between them")
    func concurrentPuts() async throws {
        let store = MemoryObjectStore(byteBudget: 1 << 20)
        let size = 300 * 1024
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                group.addTask {
                    do {
                        try await Self.put(store, "object-\(index)", size)
                        return true
                    } catch {
                        #expect(error as? MockCDNError == .insufficientStorage)
                        return false
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let stored = try await store.list(prefix: "")
        #expect(stored.count == outcomes.filter { $0 }.count)
        // Chunks interleave, so fewer may fit (even none); never more than three of 300 KiB in 1 MiB.
        #expect(stored.count <= 3)
        #expect(store.usedBytes == stored.count * size)
    }
}
