import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore

/// Guards the `/_mockcdn` routes against other machines and against web pages.
///
/// - Off loopback they need `Authorization: Bearer <admin token>`, compared in constant time.
/// - Without the token (a loopback bind), a browser must not be able to drive them, and the browser says
///   when a request comes from a web page: a request is refused when its `Origin` is not this server's own
///   origin, or when `Sec-Fetch-Site` says another site or origin sent it (`cross-site`, and `same-site`,
///   which is another port of `localhost` too). Only a top-level navigation (a GET a person follows to the
///   console) passes from elsewhere. The control routes send no CORS headers either, so a page cannot read
///   their answers; and the `Host` must be one a DNS rebinding attack cannot produce: an IP literal,
///   `localhost` or a `*.localhost` name, the bound host or the public URL's host. `AuthorityCheck`, in
///   front, has already refused a `Host` that is not `host[:port]`, a second `Host`, and an absolute-form
///   target naming another host than the `Host`; here a request without `Host` is refused (400), and so is
///   an absolute-form target naming a host the control routes do not answer on (400: MockCDN is no proxy).
///   Clients that are not browsers (curl, the CLI, the helpers) send neither header, so any request of
///   theirs passes, with a body or without one.
///
/// A loopback bind gets no generated token: every local process can already reach the port, a token it
/// could read from a file would stop none of them, and the checks above are what stop a web page.
struct AdminGuard: RouterMiddleware {
    typealias Context = AppRequestContext

    /// Needed when set (a non-loopback bind).
    let requiredToken: String?
    /// A token that, when sent, passes the browser checks (the configured one, on any bind).
    let token: String?
    /// Host names (lower-case, no port) accepted besides IP literals and `localhost`.
    let hostNames: Set<String>
    /// The public URL's origin (`http(s)://host[:port]`, lower-case), accepted as the server's own besides the
    /// request's `Host`: behind a proxy that rewrites `Host`, the console's page still has that origin.
    let publicOrigin: String?

    /// - Parameters:
    ///   - configuration: the bind and the admin token.
    ///   - publicURL: the configured public URL, whose host is accepted.
    init(configuration: ServerConfiguration) {
        self.token = configuration.adminToken
        self.requiredToken = configuration.bindsLoopbackOnly ? nil : configuration.adminToken
        var names: Set<String> = [Self.hostName(configuration.host)]
        if let publicURL = configuration.publicURL, let host = Self.hostOfURL(publicURL) { names.insert(host) }
        self.hostNames = names
        self.publicOrigin = configuration.publicURL.map { url in
            var origin = url.lowercased()
            while origin.hasSuffix("/") { origin.removeLast() }
            return origin
        }
    }

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        let sent = request.authorization.flatMap { $0.isBearer ? $0.credential : nil } ?? ""
        let authorised = !sent.isEmpty && self.token.map { SecureBytes.constantTimeEqual(sent, $0) } == true
        if self.requiredToken != nil, !authorised {
            throw HTTPError(
                .unauthorized,
                headers: [.wwwAuthenticate: "Bearer realm=\"mockcdn\""],
                message: "the test-control API needs Authorization: Bearer <admin token> on this address"
            )
        }
        if !authorised {
            guard let host = request.head.authority.flatMap({ HostAuthority($0) }) else {
                throw HTTPError(.badRequest, message: "the test-control API needs a Host header")
            }
            guard self.accepts(host) else {
                // An absolute-form target asks for another host's resource, as of a proxy, which MockCDN is not.
                throw HTTPError(
                    request.headers[.requestTarget] == nil ? .forbidden : .badRequest,
                    message: "the test-control API answers only on an IP address, localhost, the bound host or "
                        + "the public URL's host (a DNS rebinding guard); or send the admin token"
                )
            }
            if let refusal = self.browserRefusal(request) {
                throw HTTPError(
                    .forbidden,
                    message: refusal + "; the test-control API takes no requests from web pages"
                )
            }
        }
        return try await next(request, context)
    }

    /// Why a request that a web page sent is refused, or nil: an `Origin` other than the server's own (as the
    /// request's `Host` names it, or the public URL), or a `Sec-Fetch-Site` other than `same-origin` and
    /// `none` (a person's own navigation). A GET or HEAD navigation from another site passes: it can only
    /// show a page.
    func browserRefusal(_ request: Request) -> String? {
        let navigation =
            (request.method == .get || request.method == .head)
            && request.headers[.secFetchMode] == "navigate"
        if let site = request.headers[.secFetchSite], site != "same-origin", site != "none", !navigation {
            return "Sec-Fetch-Site is \(site)"
        }
        if let origin = request.headers[.origin] {
            let origin = origin.lowercased()
            let host = request.head.authority?.lowercased()
            let viaHost = host.map { origin == "http://" + $0 || origin == "https://" + $0 } ?? false
            guard viaHost || origin == self.publicOrigin else {
                return "Origin \(origin.prefix(100)) is not this server's"
            }
        }
        return nil
    }

    /// Whether a well-formed `Host` names this server in a way DNS rebinding cannot fake: an IP literal (a
    /// page cannot be served from one and reach another address), `localhost` and the `*.localhost` names
    /// (which browsers keep on loopback; virtual-hosted buckets use them), the bound host or the public URL's
    /// host. A name must be a DNS name, so no reg-name only the URI grammar allows ends in `.localhost`.
    ///
    /// - Parameters:
    ///   - authority: the request's `Host`, read as `host[:port]`.
    /// - Returns: true when the control routes answer on it.
    func accepts(_ authority: HostAuthority) -> Bool {
        switch authority.host {
        case .ipv4, .ipv6:
            return true
        case .name(let name):
            return authority.isDNSName
                && (name == "localhost" || name.hasSuffix(".localhost") || self.hostNames.contains(name))
        }
    }

    /// The host of a `Host` value or bind address, lower-cased, without port or IPv6 brackets.
    static func hostName(_ value: String) -> String {
        var host = Substring(value.lowercased())
        if host.hasPrefix("[") {
            host = host.dropFirst().prefix { $0 != "]" }
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        return String(host)
    }

    private static func hostOfURL(_ url: String) -> String? {
        guard let start = url.range(of: "://")?.upperBound else { return nil }
        let authority = url[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return hostName(String(authority))
    }
}

extension HTTPField.Name {
    /// Fetch metadata: which site sent the request (`same-origin`, `same-site`, `cross-site`, `none`).
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    /// Fetch metadata: the request's mode (`navigate` for a page a person opens).
    static let secFetchMode = HTTPField.Name("Sec-Fetch-Mode")!
}
