import Hummingbird
import NIOCore

/// A request body, counted as the handler reads it.
struct CountedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let count: ByteCount

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let count: ByteCount

        mutating func next() async throws -> ByteBuffer? {
            let chunk = try await self.base.next()
            self.count.add(chunk?.readableBytes ?? 0)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: self.base.makeAsyncIterator(), count: self.count)
    }
}

/// A response body writer that counts what goes out.
struct CountingWriter: ResponseBodyWriter {
    var inner: any ResponseBodyWriter
    let sent: ByteCount

    mutating func write(_ buffer: ByteBuffer) async throws {
        try await self.inner.write(buffer)
        self.sent.add(buffer.readableBytes)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await self.inner.finish(trailingHeaders)
    }
}
