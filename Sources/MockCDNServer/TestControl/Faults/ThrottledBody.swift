import Hummingbird
import NIOCore

/// A request body handed to the route at a fault's rate (`throttle_bytes_per_sec` on an upload).
struct ThrottledBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let rate: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        var pacer: Pacer
        var pending: ByteBuffer?

        mutating func next() async throws -> ByteBuffer? {
            if self.pending == nil || self.pending?.readableBytes == 0 {
                guard let chunk = try await self.base.next() else { return nil }
                self.pending = chunk
            }
            var pending = self.pending!
            let piece = pending.readSlice(length: Swift.min(self.pacer.pieceLength, pending.readableBytes))!
            self.pending = pending
            try await self.pacer.wait(for: piece.readableBytes)
            return piece
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: self.base.makeAsyncIterator(), pacer: Pacer(rate: self.rate))
    }
}
