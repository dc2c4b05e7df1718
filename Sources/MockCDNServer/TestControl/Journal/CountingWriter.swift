import Hummingbird
import NIOCore

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
