import HTTPTypes
import Hummingbird
import MockCDNCore

/// Virtual-hosted S3 addressing: a request whose `Host` names an app in its first label, on a name of two
/// labels or more (`demo.localhost`, `demo.s3.localhost`, `demo.cdn.example.test`), is routed as the
/// path-style request `/demo/...` it stands for. Signatures cover the path as the client sent it, without the
/// app (`signedPath`). An IP address, a first label that is no app, a path under a route prefix (`/_mockcdn`,
/// `/v1`, ...) and a path that starts with the app itself (`/demo/...`, the links MockCDN hands out on that
/// host) are left as they are.
enum VirtualHost {
    /// Internal: the app a request named by its `Host`. Only `Responder` sets it, after removing any a client
    /// sent.
    static let header = HTTPField.Name("x-mockcdn-internal-virtual-host")!

    /// The app the `Host` names, or nil.
    ///
    /// - Parameters:
    ///   - authority: the request's `Host` (`name[:port]`).
    ///   - apps: the apps served.
    /// - Returns: the app id of its first label, when that is an app and the name has more labels.
    static func app(named authority: String?, in apps: AppRegistry) -> String? {
        guard let authority, !authority.hasPrefix("[") else { return nil }
        // The host without its port (every request asks: no split, which makes an array). An authority with no
        // host before its port names no app.
        let name = authority[..<(authority.firstIndex(of: ":") ?? authority.endIndex)]
        // Every request asks: the cheap refusals first (one label, a first label that is no app), then the
        // split that tells an IP address.
        guard let dot = name.firstIndex(of: ".") else { return nil }
        let first = String(name[..<dot])
        guard apps.app(id: first) != nil else { return nil }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy({ $0.allSatisfy(\.isNumber) }) ? nil : first
    }

    /// A path-style `path` of `request` as its client signed it: without `/{app}` when the request was
    /// virtual-hosted, `/` for the bucket itself.
    ///
    /// - Parameters:
    ///   - path: the path as routed (`/{app}/{key}`, or `/{app}`).
    ///   - request: the request.
    /// - Returns: the path the signature covers.
    static func signedPath(_ path: String, of request: Request) -> String {
        guard let app = request.headers[Self.header], path.hasPrefix("/" + app) else { return path }
        let rest = path.dropFirst(app.count + 1)
        return rest.isEmpty ? "/" : String(rest)
    }

    /// Routes virtual-hosted requests as path-style ones, in front of the router.
    struct Responder<Base: HTTPResponder>: HTTPResponder where Base.Context == AppRequestContext {
        let base: Base
        let apps: AppRegistry
        /// First path segments of routes that are not media or S3 (`routePrefixes`): never rewritten.
        let reserved: Set<String>

        func respond(to request: Request, context: AppRequestContext) async throws -> Response {
            var head = request.head
            head.headerFields[VirtualHost.header] = nil
            let path = head.path ?? "/"
            let first = path.dropFirst().prefix { $0 != "/" && $0 != "?" }
            // A path that already names the app stays path-style: the links MockCDN hands out on that host.
            if let app = VirtualHost.app(named: head.authority, in: self.apps), first != app,
                !self.reserved.contains(String(first))
            {
                head.path = "/" + app + (path.hasPrefix("/?") || path == "/" ? String(path.dropFirst()) : path)
                head.headerFields[VirtualHost.header] = app
            } else if request.headers[VirtualHost.header] == nil {
                return try await self.base.respond(to: request, context: context)
            }
            return try await self.base.respond(to: Request(head: head, body: request.body), context: context)
        }
    }
}
