import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import MockCDNServer

/// `UpgradeDecliner` in a pipeline of its own (NIO's embedded channel, no socket, no clock): after a request
/// offering `Upgrade`, no read reaches the socket and nothing after that request is decoded until its answer
/// is written; then a fresh codec decodes the bytes the stopped decoder held, and the held read goes out.
@Suite("Upgrade decliner")
struct UpgradeDeclinerTests {
    /// Counts the reads that reach the socket end of the pipeline.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = Any
        var reads = 0

        func read(context: ChannelHandlerContext) {
            self.reads += 1
            context.read()
        }
    }

    static let offer =
        "GET /_mockcdn/health HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\n"
        + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n"
    static let plain = "HEAD /demo/a.bin HTTP/1.1\r\nHost: localhost\r\n\r\n"

    /// The request parts the pipeline has decoded so far, as `head PATH` and `end`.
    static func decoded(_ channel: EmbeddedChannel) throws -> [String] {
        var parts: [String] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) {
            switch part {
            case .head(let head): parts.append("head \(head.uri)")
            case .body: parts.append("body")
            case .end: parts.append("end")
            }
        }
        return parts
    }

    /// Writes a whole answer (`Content-Length: 3`, body `abc`) and lets the event loop run what it scheduled.
    static func answer(_ channel: EmbeddedChannel) throws {
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "3"])
        try channel.writeOutbound(HTTPServerResponsePart.head(head))
        try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: "abc"))))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        channel.embeddedEventLoop.run()
    }

    /// The bytes written to the socket so far.
    static func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
        return text
    }

    @Test("the request after an offer waits for the offer's answer, then a fresh codec reads it; no read meanwhile")
    func replacesTheCodec() throws {
        let counter = ReadCounter()
        let channel = EmbeddedChannel()
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(counter)
        try pipeline.configureHTTPServerPipeline(
            withPipeliningAssistance: false,
            withServerUpgrade: UpgradeDecliner.noUpgrades,
            withErrorHandling: false,
            withOutboundHeaderValidation: false,
            withEncoderConfiguration: .init(),
            withDecoderLimitConfiguration: .init()
        )
        try pipeline.addHandler(UpgradeDecliner(limits: .init()))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()

        // Both requests in one read: the decoder stops after the first, holding the second.
        try channel.writeInbound(ByteBuffer(string: Self.offer + Self.plain))
        #expect(try Self.decoded(channel) == ["head /_mockcdn/health", "end"])
        let reads = counter.reads
        channel.read()
        #expect(counter.reads == reads, "no read while the decoder is stopped")
        channel.embeddedEventLoop.run()
        #expect(try Self.decoded(channel).isEmpty, "nothing decoded before the offer is answered")

        // The offer's answer: the codec is replaced, the held request decoded, the held read let out.
        try Self.answer(channel)
        #expect(try Self.decoded(channel) == ["head /demo/a.bin", "end"])
        #expect(counter.reads == reads + 1)
        // The new encoder was paired with the new decoder, so it knows the second request is a HEAD: it refuses
        // a body for its answer, which goes out as a head alone.
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "3"])
        try channel.writeOutbound(HTTPServerResponsePart.head(head))
        #expect(throws: NIOHTTPResponseEncoderError.responseBodyNotAllowed) {
            try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: "abc"))))
        }
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        let text = try Self.written(channel)
        #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count == 3)
        #expect(text.hasSuffix("Content-Length: 3\r\n\r\n"), "\(text)")
        // And reads pass again.
        channel.read()
        #expect(counter.reads == reads + 2)
        _ = try channel.finish()
    }
}
