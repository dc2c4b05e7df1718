import Foundation
import Hummingbird
import NIOCore

/// The per-request context every MockCDN route receives.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's IP address, for CloudFront `IpAddress` conditions.
    public let remoteAddress: String?
    /// When the request arrived, for Stream's `duration` field.
    public let started: ContinuousClock.Instant
    /// The connection, for what is written outside the response (`100 Continue`, `EarlyAnswerMiddleware`).
    let channel: any Channel
    /// The request's query, parsed once by the route observer on its way in and handed down.
    var query: QueryItems?
    /// What is learnt about the request while it is answered, for the journal and the metrics.
    let notes = RequestNotes()

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress
        self.started = .now
        self.channel = source.channel
    }

    /// The request's query: the one parsed on the way in, or parsed now.
    func query(of request: Request) -> QueryItems {
        self.query ?? QueryItems(request.uri.query)
    }

    /// JSON as Stream writes it: `/` unescaped, so links read the same in a body as in a browser; members in
    /// snake_case (`WireKeys`).
    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        encoder.keyEncodingStrategy = WireKeys.encoding
        return encoder
    }

    /// Time since the request arrived, as Stream writes it: `"1.23ms"`.
    var duration: String {
        let elapsed = ContinuousClock.now - self.started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return String(format: "%.2fms", milliseconds)
    }
}
