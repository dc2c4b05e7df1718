import NIOCore
import NIOHTTP1

/// Keeps a connection on HTTP/1.1 after a request that asked to switch protocols, which MockCDN never does:
/// Java's `HttpClient` (`Connection: Upgrade, HTTP2-Settings`, `Upgrade: h2c`), a websocket client
/// (`Upgrade: websocket`), a `CONNECT`. Such a request is answered by its route as any other; this handler
/// makes sure the connection then reads the next one.
///
/// NIO's request decoder (llhttp) stops parsing once such a request has ended: whatever follows belongs to
/// the new protocol, for an upgrade handler to take over, and MockCDN has none. Left alone, the connection
/// would answer the request and then read nothing more until the idle timeout. So once the request has ended
/// and every answer owed on the connection has been written, the codec is replaced: a fresh encoder and
/// decoder go in after the stopped decoder (`configureHTTPServerPipeline`, so the encoder still learns which
/// requests were `HEAD`s), the old ones are removed, and the old decoder hands the bytes it was holding (a
/// pipelined request, say) to the new one (`RemoveAfterUpgradeStrategy.forwardBytes`). Answers still leave in
/// request order: the new decoder reads nothing before the last answer of the old one is written. Until the
/// codec is replaced, this handler asks the socket for no more bytes, so a client cannot pile up bytes in
/// the stopped decoder. One per HTTP/1 connection, right after the codec (`PlainHTTP1Channel`).
final class UpgradeDecliner: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The upgrade configuration of a codec that takes no upgrade. `configureHTTPServerPipeline` gives its
    /// decoder `.forwardBytes` only with one; its handler (`HTTPServerUpgradeHandler`, with no upgraders)
    /// declines the first request's upgrade, if it asks for one, and leaves the pipeline at that request.
    static var noUpgrades: NIOHTTPServerUpgradeConfiguration { (upgraders: [], completionHandler: { _ in }) }

    /// The request decoder's limits, for the decoder that replaces it.
    private let limits: NIOHTTPDecoderLimitConfiguration
    /// Requests read whose answers have not ended.
    private var unanswered = 0
    /// Whether the request being read asked to switch protocols.
    private var switching = false
    /// Whether the decoder stopped after such a request, and has not been replaced yet.
    private var stopped = false
    /// Whether a replacement is scheduled for the next turn of the event loop.
    private var scheduled = false
    /// Whether the codec is being replaced: the old decoder is handing over what it held.
    private var replacing = false
    /// Whether a read was asked for while the decoder could take no bytes.
    private var readHeld = false

    /// - Parameters:
    ///   - limits: the decoder's limits (header sizes and count), kept by every decoder of the connection.
    init(limits: NIOHTTPDecoderLimitConfiguration) {
        self.limits = limits
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            if self.stopped, !self.replacing {
                // The old decoder read on after all, so it had not stopped: nothing to replace. (Only a request
                // that `asksToSwitch` judges otherwise than llhttp gets here.)
                self.stopped = false
                self.releaseRead(context: context)
            }
            self.unanswered += 1
            self.switching = Self.asksToSwitch(head)
        case .body:
            break
        case .end:
            if self.switching {
                self.switching = false
                self.stopped = true
            }
        }
        context.fireChannelRead(data)
        // A read answered at once (a fast read, or an early refusal) may have ended its answer already.
        self.replaceWhenAnswered(context: context)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let ended: Bool
        if case .end = self.unwrapOutboundIn(data) { ended = true } else { ended = false }
        context.write(data, promise: promise)
        if ended {
            self.unanswered = max(0, self.unanswered - 1)
            self.replaceWhenAnswered(context: context)
        }
    }

    func read(context: ChannelHandlerContext) {
        if self.stopped || self.replacing {
            self.readHeld = true
        } else {
            context.read()
        }
    }

    /// Whether llhttp reads `head` as asking to switch protocols, after which it parses nothing more: a
    /// `CONNECT`, or a non-empty `Upgrade` with an `upgrade` token in `Connection` (or `Proxy-Connection`,
    /// which llhttp reads the same way).
    ///
    /// - Parameters:
    ///   - head: a request head, as the decoder made it.
    /// - Returns: true when the decoder stops after this request.
    static func asksToSwitch(_ head: HTTPRequestHead) -> Bool {
        if head.method == .CONNECT { return true }
        // Every request asks: one scan of the names, and nothing more for a request without `Upgrade`.
        guard head.headers.contains(name: "upgrade") else { return false }
        let offered = head.headers["upgrade"].contains { value in
            value.contains { $0 != " " && $0 != "\t" }
        }
        guard offered else { return false }
        // The comma-separated tokens, spaces and tabs trimmed, as llhttp reads them.
        let tokens = head.headers[canonicalForm: "connection"] + head.headers[canonicalForm: "proxy-connection"]
        return tokens.contains { $0.lowercased() == "upgrade" }
    }

    /// Schedules the codec's replacement once the decoder has stopped and every answer it owes has ended.
    /// It runs on the next turn of the event loop, outside the read or write that got here.
    private func replaceWhenAnswered(context: ChannelHandlerContext) {
        guard self.stopped, !self.replacing, !self.scheduled, self.unanswered == 0 else { return }
        self.scheduled = true
        context.eventLoop.assumeIsolated().execute {
            self.scheduled = false
            guard self.stopped, !self.replacing, self.unanswered == 0, context.channel.isActive else { return }
            self.replaceCodec(context: context)
        }
    }

    /// Puts a fresh encoder and decoder after the stopped decoder, then removes the old pair: the old
    /// decoder's held bytes go to the new one as it leaves. Closes the connection if the pipeline will not
    /// take the change.
    private func replaceCodec(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        do {
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let encoder = try pipeline.handler(type: HTTPResponseEncoder.self)
            try pipeline.configureHTTPServerPipeline(
                position: .after(decoder),
                withPipeliningAssistance: false,
                withServerUpgrade: Self.noUpgrades,
                withErrorHandling: false,
                withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(),
                withDecoderLimitConfiguration: self.limits
            )
            self.stopped = false
            self.replacing = true
            pipeline.removeHandler(encoder, promise: nil)
            // The decoder leaves on a later turn of the loop, once it has handed its bytes on.
            pipeline.removeHandler(decoder).assumeIsolated().whenComplete { _ in
                self.replacing = false
                guard context.channel.isActive else { return }
                // What the new decoder made of those bytes is delivered on the next read completion.
                context.fireChannelReadComplete()
                // A request among them may have asked to switch again, and may even be answered already.
                self.replaceWhenAnswered(context: context)
                if !self.stopped { self.releaseRead(context: context) }
            }
        } catch {
            context.close(promise: nil)
        }
    }

    /// Asks for the read that was held back, if one was.
    private func releaseRead(context: ChannelHandlerContext) {
        guard self.readHeld else { return }
        self.readHeld = false
        context.read()
    }
}
