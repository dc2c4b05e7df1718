import HTTPTypes
import Hummingbird

/// Refuses (400) a `/_mockcdn` request, health included, that does not name one well-formed host, as RFC 9112
/// (section 3.2) has a server do: more than one `Host` header, a `Host` that is not `host[:port]`
/// (`127.0.0.1:8080@evil.example`, `[::1].evil`), or an absolute-form target (`GET http://host/path`) whose
/// host is not the `Host`'s. Which hosts the guarded routes answer on is `AdminGuard`'s to say; this check
/// only makes sure that there is one host to judge, read the way every client and proxy reads it. A request
/// without `Host` passes here (an HTTP/1.0 health check sends none); `AdminGuard` refuses it.
struct AuthorityCheck: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        if let refusal = Self.refusal(of: request) { throw HTTPError(.badRequest, message: refusal) }
        return try await next(request, context)
    }

    /// Why `request` names no single well-formed host, or nil when it names one (or none).
    ///
    /// - Parameters:
    ///   - request: the request, its first `Host` as its authority.
    /// - Returns: the refusal's message, which repeats nothing the client sent.
    static func refusal(of request: Request) -> String? {
        // The HTTP/1 codec takes the first `Host` as the authority and leaves any other among the fields.
        if request.headers[.host] != nil { return "a request carries one Host header, not several" }
        let host = request.head.authority.map { HostAuthority($0) }
        if case .some(.none) = host {
            return "the Host header is not host[:port]: a name, an IPv4 address or a bracketed IPv6 address, "
                + "then digits for a port"
        }
        if let target = request.headers[.requestTarget] {
            guard let named = HostAuthority.ofTarget(target), let host = host ?? nil,
                named.authority.isSame(as: host, defaultPort: named.defaultPort)
            else {
                return "an absolute-form request target must name the host and port the Host header names"
            }
        }
        return nil
    }
}

extension HTTPField.Name {
    /// `Host`, seen among the fields only when a request carries a second one.
    static let host = HTTPField.Name("Host")!
}
