import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 connection (`HTTP1Channel`), with a codec that stays on HTTP/1.1 after a request
/// that asked to switch protocols (`UpgradeDecliner`), and a note of what an absolute-form target names
/// (`RequestTargetNote`). Everything else is `HTTP1Channel.setup` as Hummingbird 2.28 builds it: the same
/// decoder limits, the additional handlers after the codec, the connection state handler with the idle
/// timeout, and `handleHTTP`, which runs the responder.
///
/// Hummingbird builds its codec with NIO's defaults, whose decoder drops the bytes it holds when it is
/// removed; replacing a stopped decoder needs one that hands them on, which only a codec configured with
/// a server upgrade gets (`UpgradeDecliner.noUpgrades`).
struct PlainHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let configuration: HTTP1Channel.Configuration

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = self.configuration.httpDecoder.maxHeaderFieldSize
            limits.maxHeaderListSize = self.configuration.httpDecoder.maxHeaderListSize
            limits.maxHeaderFieldCount = self.configuration.httpDecoder.maxHeaderFieldCount
            let pipeline = channel.pipeline.syncOperations
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false,
                withServerUpgrade: UpgradeDecliner.noUpgrades,
                withErrorHandling: false,
                withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(),
                withDecoderLimitConfiguration: limits
            )
            try pipeline.addHandler(UpgradeDecliner(limits: limits))
            try pipeline.addHandler(RequestTargetNote())
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandlers(self.configuration.additionalChannelHandlers())
            try pipeline.addHandler(
                HTTPConnectionStateHandler(
                    idleTimeout: self.configuration.idleTimeout.map { .init($0) },
                    logger: logger
                )
            )
            return try NIOAsyncChannel(
                wrappingChannelSynchronously: channel,
                configuration: .init(isOutboundHalfClosureEnabled: true)
            )
        }
    }

    func handle(value: Value, logger: Logger) async {
        await self.handleHTTP(asyncChannel: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// MockCDN's HTTP/1 server: `PlainHTTP1Channel` with `configuration`.
    ///
    /// - Parameters:
    ///   - configuration: the additional handlers, idle timeout and decoder limits, as for `http1`.
    /// - Returns: the builder `Application` takes.
    static func plainHTTP1(configuration: HTTP1Channel.Configuration) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in PlainHTTP1Channel(responder: responder, configuration: configuration) }
    }
}
