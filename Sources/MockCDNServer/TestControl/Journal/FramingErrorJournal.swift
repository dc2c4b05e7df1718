import HummingbirdCore
import MockCDNCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Journals a request whose head the HTTP parser refused before any route could see it: `Content-Length`
/// together with `Transfer-Encoding`, a negative or non-numeric length, a malformed request line. Hummingbird
/// answers those 400 with `Connection: close` and an empty body (no route, so no envelope); this handler, in
/// the connection's pipeline, leaves the answer alone and adds the journal entry, with the parser's reason, so
/// a test can see why. A framing error inside a body reaches the route instead, which answers 400 in its own
/// envelope and journals it (`Failure` in ErrorEnvelopeMiddleware.swift).
final class FramingErrorJournal: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let journal: Journal
    private let clock: MockClock
    /// Whether a request head arrived whose end has not: then an error belongs to that request's body.
    private var inRequest = false

    init(journal: Journal, clock: MockClock) {
        self.journal = journal
        self.clock = clock
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head: self.inRequest = true
        case .end: self.inRequest = false
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let parser = error as? HTTPParserError, !self.inRequest {
            let entry = self.journal.record(
                method: "-",
                path: "-",
                query: QueryItems(nil),
                clock: self.clock.unixSeconds,
                state: .init(
                    credential: .none,
                    status: 400,
                    bytesIn: 0,
                    bytesOut: 0,
                    durationMilliseconds: 0,
                    fault: nil
                )
            )
            entry.update { $0.reason = "malformed request framing (\(parser)); answered 400 and closed" }
        }
        context.fireErrorCaught(error)
    }
}
