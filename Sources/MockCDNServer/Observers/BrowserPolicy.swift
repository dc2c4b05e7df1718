import HTTPTypes
import Hummingbird

/// What browsers are told on every answer: `X-Content-Type-Options: nosniff`, so no file is run as another
/// type than it is served as; and CORS for the media and API routes only, never for the test-control routes,
/// so a web page can neither read their answers nor pass their preflights.
struct BrowserPolicy: RequestObserver {
    /// Response headers a web media player needs to read.
    static var exposedHeaders: [String] {
        ["ETag", "Content-Length", "Content-Range", "Accept-Ranges", "Last-Modified"]
    }

    private let cors: CORSMiddleware<AppRequestContext>
    private let exposed: String

    init(allowHeaders: [HTTPField.Name]) {
        self.cors = CORSMiddleware(
            allowOrigin: .all,
            allowHeaders: allowHeaders,
            allowMethods: [.get, .head, .post, .put, .patch, .delete, .options],
            exposedHeaders: Self.exposedHeaders,
            maxAge: .seconds(86400)
        )
        self.exposed = Self.exposedHeaders.joined(separator: ", ")
    }

    func observe(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        var response: Response
        if Self.isControl(path: request.uri.path) {
            do {
                response = try await next(request, context)
            } catch let error as any HTTPResponseError {
                // Rendered here, so the refusal carries the header too.
                response = try error.response(from: request, context: context)
            }
        } else if request.method == .options {
            response = try await self.cors.handle(request, context: context, next: next)
        } else {
            do {
                response = try await next(request, context)
            } catch {
                // CORSMiddleware puts its headers on the error (Hummingbird's own wrapper): it answers it.
                response = try await self.cors.handle(request, context: context) { _, _ in throw error }
            }
            self.allowRead(&response.headers, for: request)
            return response
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }

    /// The fast path answers media reads only: each is told what `observe` tells a read.
    func observeFast(_ request: Request, context: AppRequestContext, response: inout Response) {
        self.allowRead(&response.headers, for: request)
    }

    /// What an answer to a request other than a preflight, to a route that is not a test-control one, is
    /// told. With an `Origin`, what CORSMiddleware adds for
    /// `allowOrigin: .all` (`*`, no credentials, no `Vary`) and the exposed headers; and `nosniff` always.
    ///
    /// - Parameters:
    ///   - headers: the answer's headers.
    ///   - request: the request answered.
    func allowRead(_ headers: inout HTTPFields, for request: Request) {
        if request.headers[.origin] != nil {
            headers[.accessControlAllowOrigin] = "*"
            // CORSMiddleware sends Expose-Headers on preflights only, but browsers read it from the actual
            // response (Fetch standard); without it a web player cannot see Content-Range or ETag.
            headers[.accessControlExposeHeaders] = self.exposed
        }
        headers[.xContentTypeOptions] = "nosniff"
    }

    /// Whether a path is a test-control route as the router would match it: `/_mockcdn/...` or `/metrics`,
    /// with empty segments (`//_mockcdn`) ignored as the router ignores them. Decided from the path, not the
    /// matched route, because a preflight (OPTIONS) matches no route.
    static func isControl(path: String) -> Bool {
        // On the bytes, without splitting the path: every request asks.
        let bytes = path.utf8
        let slash = UInt8(ascii: "/")
        guard let start = bytes.firstIndex(where: { $0 != slash }) else { return false }
        let end = bytes[start...].firstIndex(of: slash) ?? bytes.endIndex
        let first = bytes[start..<end]
        if first.elementsEqual("_mockcdn".utf8) { return true }
        return first.elementsEqual("metrics".utf8) && bytes[end...].allSatisfy { $0 == slash }
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}
