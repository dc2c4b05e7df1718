import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import Synchronization

/// HTTP framing around answers given before a request's body is read: `Expect: 100-continue`, and the
/// connection after an early refusal.
///
/// - A client that sent `Expect: 100-continue` (botocore's PutObject, curl over 1 MiB) waits for `100
///   Continue` before it sends the body. It is sent when the route first reads the body, which every route
///   does only after its credential and limit checks: an accepted request gets it at once, a refused one
///   never does.
/// - An answer given while the body is unread would leave Hummingbird reading the body the client may never
///   send (having had its final answer), and the client's next request on the connection would be read as
///   that body. So such an answer carries `Connection: close`, and the connection closes once it is written
///   (`CloseAfterResponseHandler`), unless the rest of the body is small and on its way (no `Expect`, at most 64 KiB announced), which is
///   drained as before and keeps the connection.
struct EarlyAnswerMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// The most unread body bytes drained to keep a connection.
    static var drainLimit: Int { 64 * 1024 }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let announced = request.headers[.contentLength].flatMap { Int($0) }
        let mayHaveBody = announced.map { $0 > 0 } ?? ![.get, .head, .options, .delete].contains(request.method)
        guard mayHaveBody else { return try await next(request, context) }
        let expectsContinue = request.headers[.expect]?.lowercased() == "100-continue"
        let progress = BodyProgress(
            continueTo: expectsContinue ? context.channel : nil
        )
        var request = request
        request.body = RequestBody(
            asyncSequence: ObservedBody(base: request.body, willRead: progress.reading, didRead: progress.received)
        )
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        let (ended, read) = progress.state
        let unread = announced.map { $0 - read }
        let keep = ended || (!expectsContinue && unread.map { $0 <= Self.drainLimit } == true)
        if !keep {
            // The connection closes once this answer is written (CloseAfterResponseHandler): what the client
            // sends next is never read as this request's body.
            response.headers[.connection] = "close"
        }
        return response
    }
}

/// How far a request body has been read, and the channel to send `100 Continue` on at the first read.
final class BodyProgress: Sendable {
    private struct State {
        var started = false
        var ended = false
        var read = 0
    }

    private let progress = Mutex(State())
    private let channel: (any Channel)?

    init(continueTo channel: (any Channel)?) {
        self.channel = channel
    }

    /// Whether the body ended, and the bytes read.
    var state: (ended: Bool, read: Int) {
        self.progress.withLock { ($0.ended, $0.read) }
    }

    /// A read is about to wait for body bytes: the first one tells an `Expect: 100-continue` client to send.
    func reading() {
        let first = self.progress.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        if first, let channel = self.channel {
            channel.writeAndFlush(HTTPResponsePart.head(HTTPResponse(status: .continue)), promise: nil)
        }
    }

    func received(_ count: Int?) {
        self.progress.withLock { state in
            if let count { state.read += count } else { state.ended = true }
        }
    }
}
