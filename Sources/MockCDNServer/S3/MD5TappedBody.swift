import MockCDNCore
import NIOCore

/// A body that feeds each chunk to an MD5 on its way to the store: a part's ETag, computed as it streams.
struct MD5TappedBody<Base: AsyncSequence>: AsyncSequence where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let base: Base
    let hasher: MD5Hasher

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let hasher: MD5Hasher

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await self.base.next() else { return nil }
            self.hasher.update(chunk)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: self.base.makeAsyncIterator(), hasher: self.hasher)
    }
}
