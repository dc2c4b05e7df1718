import MockCDNCore
import NIOCore

/// A stored object's bytes (or a range of them) as a body to store again (a copy, a part copied from an
/// object, the parts of a multipart upload joined): read a slice at a time, so that copying a large object
/// holds one slice in memory, never the whole.
struct StoredBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    /// The bytes of one read.
    static let sliceBytes = 1 << 20

    let store: any ObjectStore
    let key: ObjectKey
    /// The bytes to read, within the object.
    let range: Range<Int>

    /// The whole object of `size` bytes at `key`.
    init(store: any ObjectStore, key: ObjectKey, size: Int) {
        self.init(store: store, key: key, range: 0..<size)
    }

    /// The bytes `range` of the object at `key`.
    init(store: any ObjectStore, key: ObjectKey, range: Range<Int>) {
        self.store = store
        self.key = key
        self.range = range
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: StoredBody
        var offset: Int

        mutating func next() async throws -> ByteBuffer? {
            guard self.offset < self.body.range.upperBound else { return nil }
            let end = Swift.min(self.offset + StoredBody.sliceBytes, self.body.range.upperBound)
            let slice = try await self.body.store.collect(self.body.key, range: self.offset..<end)
            // An object replaced under the copy, shorter than it was, ends the copy with an error, never short.
            guard slice.readableBytes == end - self.offset else { throw MockCDNError.objectNotFound }
            self.offset = end
            return slice
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self, offset: self.range.lowerBound) }
}
