import MockCDNCore
import NIOCore

/// A stored object's bytes as a body to store again (a copy): read a slice at a time, so that copying a large
/// object holds one slice in memory, never the whole.
struct StoredBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    /// The bytes of one read.
    static let sliceBytes = 1 << 20

    let store: any ObjectStore
    let key: ObjectKey
    let size: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: StoredBody
        var offset = 0

        mutating func next() async throws -> ByteBuffer? {
            guard self.offset < self.body.size else { return nil }
            let end = Swift.min(self.offset + StoredBody.sliceBytes, self.body.size)
            let slice = try await self.body.store.collect(self.body.key, range: self.offset..<end)
            // An object replaced under the copy, shorter than it was, ends the copy with an error, never short.
            guard slice.readableBytes == end - self.offset else { throw MockCDNError.objectNotFound }
            self.offset = end
            return slice
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
}
