import HTTPTypes
import Hummingbird

/// S3's answer to a method no route takes on an S3-addressed path (`PATCH /demo/key`, WebDAV's `PROPFIND`, an
/// `OPTIONS` that is no CORS preflight): 405 `MethodNotAllowed` in S3's XML, naming the method and whether
/// the path is the bucket or an object, where the router alone answers an empty 404. Paths under a route
/// prefix (`routePrefixes`) and `/` keep the router's answer: they are not S3's.
///
/// A router middleware, so that it also wraps the router's own "not found"; the route groups answer their
/// errors in their envelopes, so the only 404 that reaches it is the router's.
struct UnroutedMethodMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// First path segments that are not apps.
    let reserved: Set<String>

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let segments = request.uri.path.split(separator: "/", maxSplits: 1)
            guard let first = segments.first, !self.reserved.contains(String(first)) else { throw error }
            let refusal = S3Error.methodNotAllowed(request.method, onBucket: segments.count == 1)
            return try await ErrorEnvelopeMiddleware<S3Error>().handle(request, context: context) { _, _ in
                throw refusal
            }
        }
    }
}

extension S3Error {
    /// 405: a method S3 does not take on that resource, as S3 words it.
    static func methodNotAllowed(_ method: HTTPRequest.Method, onBucket: Bool) -> S3Error {
        S3Error(
            status: .methodNotAllowed,
            code: "MethodNotAllowed",
            message: "The specified method is not allowed against this resource.",
            details: [("Method", method.rawValue), ("ResourceType", onBucket ? "BUCKET" : "OBJECT")]
        )
    }
}
