import Foundation
import HTTPTypes
import Hummingbird

/// S3's request identifiers on an answer: `x-amz-request-id`, the id the server gave the request
/// (`RequestContext.id`, which an S3 error's `<RequestId>` names too), and `x-amz-id-2`, S3's extended request
/// id (an error's `<HostId>`), here that id in base64. S3 sends both on every answer, success or refusal, and
/// the SDKs log them (botocore's `ResponseMetadata` `RequestId` and `HostId`), so a test's log line leads to
/// the request. The middleware of the S3 and CDN route groups; `S3Error`'s rendering and the fast reads mark
/// their answers with `mark` themselves.
struct AmzRequestID: RouterMiddleware {
    typealias Context = AppRequestContext

    static let requestIDHeader = HTTPField.Name("x-amz-request-id")!
    static let hostIDHeader = HTTPField.Name("x-amz-id-2")!

    /// The extended request id of a request: its id in base64, opaque as S3's and tied to the request id.
    ///
    /// - Parameter id: the request's id.
    /// - Returns: the `x-amz-id-2` value.
    static func hostID(of id: String) -> String {
        Data(id.utf8).base64EncodedString()
    }

    /// Puts both identifiers on an answer's headers.
    ///
    /// - Parameters:
    ///   - headers: the answer's headers.
    ///   - id: the request's id (`RequestContext.id`).
    static func mark(_ headers: inout HTTPFields, id: String) {
        headers[Self.requestIDHeader] = id
        headers[Self.hostIDHeader] = Self.hostID(of: id)
    }

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        var response = try await next(request, context)
        Self.mark(&response.headers, id: context.id)
        return response
    }
}
