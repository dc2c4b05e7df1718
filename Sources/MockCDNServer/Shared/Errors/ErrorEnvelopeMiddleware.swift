import Foundation
import Hummingbird
import MockCDNCore

/// Answers every error a route group throws in that group's envelope: handlers just `try`, and no error
/// leaves a group in another shape, nor as Hummingbird's bare 500. The refusal's reason and, for an expired
/// credential, its expiry go in the request's notes for the journal (`RefusalNote`).
struct ErrorEnvelopeMiddleware<Envelope: ErrorEnvelope>: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let envelope = Envelope.rendering(error)
            if let explained = envelope as? any ExplainedRefusal { context.notes.refusal = RefusalNote(explained) }
            return try envelope.response(from: request, context: context)
        }
    }
}

extension HTTPError: ErrorEnvelope {
    /// The control routes' JSON (`{"error":{"message"}}`, Hummingbird's shape, which their clients read).
    init(_ failure: Failure) {
        self.init(failure.status, message: failure.message)
    }

    public var category: ErrorCategory { Failure.category(of: self.status) }
    public var publicMessage: String { self.body ?? self.status.reasonPhrase }
}

extension Response {
    /// A JSON error envelope (Stream's, CometChat's): keys sorted, slashes as they are.
    static func jsonEnvelope(_ body: [String: Any], status: HTTPResponse.Status) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
