import HTTPTypes
import Hummingbird

/// Adds `Access-Control-Expose-Headers` to actual cross-origin responses.
///
/// Hummingbird's CORSMiddleware sends it only on preflight answers, but browsers read it from the actual
/// response (Fetch standard); without it a web player cannot see `Content-Range` or `ETag`.
struct CORSExposeHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let exposedHeaders: String

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response = try await next(request, context)
        if request.headers[.origin] != nil, request.method != .options {
            response.headers[.accessControlExposeHeaders] = self.exposedHeaders
        }
        return response
    }
}
