import Hummingbird
import NIOCore

/// A request body whose reads are reported as they happen: before each wait for bytes, and after it with
/// the chunk's size (nil at the end). The journal counts a body this way, and `EarlyAnswerMiddleware` learns
/// when a body is first read and whether it ended.
struct ObservedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    var willRead: @Sendable () -> Void = {}
    let didRead: @Sendable (_ bytes: Int?) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let willRead: @Sendable () -> Void
        let didRead: @Sendable (Int?) -> Void

        mutating func next() async throws -> ByteBuffer? {
            self.willRead()
            let chunk = try await self.base.next()
            self.didRead(chunk?.readableBytes)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: self.base.makeAsyncIterator(), willRead: self.willRead, didRead: self.didRead)
    }
}
