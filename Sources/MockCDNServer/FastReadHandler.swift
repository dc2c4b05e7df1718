import Foundation
import HTTPTypes
import MockCDNCore
import NIOCore
import NIOHTTPTypes

/// Answers plain media reads on the connection's event loop (`FastReads`), and hands every other request to
/// Hummingbird untouched. One per HTTP/1 connection, after the HTTP codec.
///
/// A request answered here skips Hummingbird's per-request work (a hop to Swift's task pool and back, the
/// router, the middleware chain): the answer, its journal entry and its count are the route's own. Answers
/// must leave in the order their requests came (HTTP/1.1 pipelining), so while a request handed on is still
/// being answered (its answer's `.end` has not passed through here), every later one is handed on too.
final class FastReadHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let reads: FastReads
    /// Requests handed on whose answers have not ended.
    private var routed = 0
    /// Whether the parts after a head answered here are dropped, up to its `.end`.
    private var dropping = false
    /// The `Date` header of the current second, as Hummingbird writes it.
    private var date: (second: Int, text: String) = (-1, "")

    init(reads: FastReads) {
        self.reads = reads
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            if self.routed == 0,
                let answer = self.reads.answer(
                    head,
                    channel: context.channel,
                    date: { self.currentDate() }
                )
            {
                self.dropping = true
                context.write(self.wrapOutboundOut(.head(answer.head)), promise: nil)
                if let body = answer.body { context.write(self.wrapOutboundOut(.body(body)), promise: nil) }
                context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            self.dropping = false
            self.routed += 1
            context.fireChannelRead(data)
        case .body:
            if !self.dropping { context.fireChannelRead(data) }
        case .end:
            if self.dropping {
                self.dropping = false
            } else {
                context.fireChannelRead(data)
            }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Only Hummingbird's answers pass through here; this handler's own go out from its context.
        if case .end = self.unwrapOutboundIn(data) { self.routed = max(0, self.routed - 1) }
        context.write(data, promise: promise)
    }

    /// `Date` for now, formatted once a second.
    private func currentDate() -> String {
        let now = Date()
        let second = Int(now.timeIntervalSince1970)
        if second != self.date.second { self.date = (second, HTTPDate.format(now)) }
        return self.date.text
    }
}
