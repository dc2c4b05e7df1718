import Foundation
import Hummingbird
import MockCDNCore
import NIOCore

/// Media reads: `GET|HEAD /{app}/{key}`, authorised by a CloudFront signature (FAT and SigV4 join with the
/// secure-media issue), with RFC 9110 ranges and conditional requests, streamed from the store.
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
        let query = QueryItems(request.uri.query)
        try self.authorize(request, context: context, app: app, query: query)

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

    /// Checks the request's credentials: none is 401, none valid is 403 naming the failed rule.
    private func authorize(_ request: Request, context: AppRequestContext, app: MediaApp, query: QueryItems) throws {
        guard let credential = CloudFrontCredential(query: query.decoded) else { throw S3Error.missingCredential() }
        do {
            try CloudFrontVerifier.verify(
                credential,
                resources: self.resourceCandidates(request, query: query),
                now: self.services.clock.unixSeconds,
                clientAddress: context.remoteAddress
            ) { app.keyPair(id: $0) }
        } catch {
            throw S3Error.accessDenied(error.message)
        }
    }

    /// The URLs the request may have been signed as: under the Host header and under the public URL, with
    /// the query minus signing parameters, and also minus image transform parameters.
    private func resourceCandidates(_ request: Request, query: QueryItems) -> [String] {
        var bases = [self.services.links.baseURL]
        if let host = request.head.authority { bases.append("http://" + host) }
        let unsigned = query.raw.filter { !CloudFrontCredential.parameterNames.contains($0.name) }
        let untransformed = unsigned.filter { !Self.transformParameters.contains($0.name) }
        var queries = [QueryItems.join(untransformed)]
        if unsigned.count != untransformed.count { queries.append(QueryItems.join(unsigned)) }
        var candidates: [String] = []
        for base in Set(bases) {
            for query in queries {
                candidates.append(base + request.uri.path + (query.isEmpty ? "" : "?" + query))
            }
        }
        return candidates
    }
}

/// A query string as raw `name=value` pairs in order (encoding kept, for signatures) and decoded.
struct QueryItems {
    let raw: [(name: String, text: String)]
    let decoded: [(name: String, value: String)]

    /// At most this many parameters are read; a longer query is cut there.
    static let maximumCount = 100

    init(_ query: String?) {
        var raw: [(String, String)] = []
        var decoded: [(String, String)] = []
        for pair in (query ?? "").split(separator: "&").prefix(Self.maximumCount) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            // `+` stays `+`: tokens in standard base64 carry it, and RFC 3986 gives it no special meaning.
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? String(parts[1]) : ""
            raw.append((name, String(pair)))
            decoded.append((name, value.removingPercentEncoding ?? value))
        }
        self.raw = raw
        self.decoded = decoded
    }

    static func join(_ items: [(name: String, text: String)]) -> String {
        items.map(\.text).joined(separator: "&")
    }
}
