import HTTPTypes
import Hummingbird
import MockCDNCore

/// Guards the `/_mockcdn` routes: open when the server binds loopback only; otherwise they need
/// `Authorization: Bearer <admin token>`, compared in constant time.
struct AdminGuard: RouterMiddleware {
    typealias Context = AppRequestContext

    /// nil: open (loopback bind).
    let token: String?

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        if let token = self.token {
            let header = request.headers[.authorization] ?? ""
            let sent = header.lowercased().hasPrefix("bearer ") ? String(header.dropFirst(7)) : ""
            guard !sent.isEmpty, SecureBytes.constantTimeEqual(sent, token) else {
                throw HTTPError(
                    .unauthorized,
                    headers: [.wwwAuthenticate: "Bearer realm=\"mockcdn\""],
                    message: "the test-control API needs Authorization: Bearer <admin token> on this address"
                )
            }
        }
        return try await next(request, context)
    }
}
