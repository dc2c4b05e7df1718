import Foundation
import Hummingbird
import MockCDNCore
import NIOCore

/// Media reads: `GET|HEAD /{app}/{key}`, authorised by a FAT, a SigV4 presigned query or a CloudFront
/// signature (`MediaReadAuthorizer`), with RFC 9110 ranges and conditional requests, streamed from the store.
struct CDNController {
    let services: ServerServices

    /// Image transform parameters: outside the signed resource of the links MockCDN issues, so a client may
    /// append them (as Stream's SDKs do).
    static let transformParameters: Set<String> = ["w", "h", "resize", "crop", "ro"]
    static let cacheControl = "public, max-age=86400"

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(":app/**") { request, context in try await self.read(request, context: context) }
        router.head(":app/**") { request, context in try await self.read(request, context: context) }
    }

    func read(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try context.parameters.require("app")
        guard let app = self.services.apps.app(id: appID) else { throw S3Error.noSuchApp() }
        let key: ObjectKey
        do {
            key = try ObjectKey(app: appID, percentEncodedPath: request.uri.path)
        } catch {
            throw S3Error.invalidURI(error.detail)
        }
        _ = try MediaReadAuthorizer(services: self.services)
            .authorize(request, context: context, app: app, key: key, query: QueryItems(request.uri.query))

        guard let metadata = try await self.services.store.metadata(for: key) else { throw S3Error.noSuchKey() }
        var headers: HTTPFields = [
            .contentType: metadata.contentType,
            .eTag: metadata.etag,
            .lastModified: HTTPDate.format(metadata.created),
            .acceptRanges: "bytes",
            .cacheControl: Self.cacheControl,
        ]
        let outcome = ConditionalRequest.evaluate(
            ifNoneMatch: request.headers[.ifNoneMatch],
            ifModifiedSince: request.headers[.ifModifiedSince],
            ifRange: request.headers[.ifRange],
            etag: metadata.etag,
            lastModified: metadata.created
        )
        guard case .serve(let honourRange) = outcome else {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        var status = HTTPResponse.Status.ok
        var range: Range<Int>? = nil
        if honourRange {
            switch RangeRequest.parse(request.headers[.range], size: metadata.size) {
            case .whole, .multiple: break
            case .unsatisfiable: throw S3Error.invalidRange(size: metadata.size)
            case .partial(let bytes):
                status = .partialContent
                range = bytes
                headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/\(metadata.size)"
            }
        }
        let length = range?.count ?? metadata.size
        headers[.contentLength] = String(length)
        guard request.method != .head else { return Response(status: status, headers: headers) }
        let store = self.services.store
        let servedRange = range
        let body = ResponseBody(contentLength: length) { writer in
            try await store.read(key, range: servedRange) { chunk in try await writer.write(chunk) }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }
}
