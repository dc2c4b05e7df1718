import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore

/// S3's dispatch, before any route: a request addressed to S3 (a bucket or object path, or `/` signed with an
/// app's S3 keys) for an operation MockCDN does not do is refused as S3 would refuse it, before its body is
/// read or its credential checked, so that no sub-resource is ever taken for the plain read or write beside it
/// (`PUT ?acl` is no PutObject, `GET ?tagging` no GetObject):
///
/// - an operation of `S3Operation.all` that is not served: 501 `NotImplemented`, naming it;
/// - a sub-resource S3 does not take with the method on that target (`DELETE /{bucket}?location`): 405
///   `MethodNotAllowed`;
/// - a query parameter without a value that names no sub-resource S3 has (a newer operation's), on a write or
///   on a request signed with S3's keys: 501 `NotImplemented`, naming it;
/// - a `versionId` other than `null`: 400 `InvalidArgument` (MockCDN keeps no versions, as a bucket that never
///   had versioning);
/// - a method no route takes on an S3 path (`PATCH /demo/key`, WebDAV's `PROPFIND`, an `OPTIONS` that is no
///   CORS preflight): 405 `MethodNotAllowed`, where the router alone answers an empty 404.
///
/// `GET /` signed with S3's keys is ListBuckets, answered here; paths under a route prefix (`routePrefixes`),
/// and `/` without S3's credentials, are not S3's and pass.
/// A router middleware inside the journal, so that each refusal is journaled with its reason.
struct S3OperationGate: RouterMiddleware {
    typealias Context = AppRequestContext

    /// First path segments that are not buckets.
    let reserved: Set<String>
    let apps: AppRegistry
    /// ListBuckets, which `/` signed with S3's keys is.
    let lifecycle: BucketLifecycle

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        let target = Self.target(of: request.uri.path, reserved: self.reserved, apps: self.apps)
        if let target {
            let query = context.query(of: request)
            if let refusal = Self.refusal(request, target: target, query: query) {
                return try await Self.answer(refusal, request: request, context: context)
            }
            if target == .service, request.method == .get, request.offersS3Credential(query: query) {
                return try await ErrorEnvelopeMiddleware<S3Error>().handle(request, context: context) {
                    try await self.lifecycle.list($0, context: $1)
                }
            }
        }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard let target, target != .service else { throw error }
            return try await Self.answer(
                .methodNotAllowed(request.method, onBucket: target == .bucket),
                request: request,
                context: context
            )
        }
    }

    /// What S3 addresses with `path`; nil for a path that is not S3's.
    ///
    /// - Parameters:
    ///   - path: the request's path.
    ///   - reserved: first path segments that are not buckets.
    ///   - apps: the apps, one of which may be named `WriteGetObjectResponse`.
    /// - Returns: the target, or nil.
    static func target(of path: String, reserved: Set<String>, apps: AppRegistry) -> S3Operation.Target? {
        guard path != "/" else { return .service }
        let segments = path.utf8.dropFirst().split(separator: UInt8(ascii: "/"), maxSplits: 1)
        guard let first = segments.first.map({ String(Substring($0)) }), !reserved.contains(first) else {
            return nil
        }
        if segments.count == 2 { return .object }
        if first == "WriteGetObjectResponse", apps.app(id: first) == nil { return .objectLambda }
        return .bucket
    }

    /// S3's refusal of a request to `target`, or nil when a route may serve it.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - target: what its path addresses.
    ///   - query: its query.
    /// - Returns: the refusal, or nil.
    static func refusal(_ request: Request, target: S3Operation.Target, query: QueryItems) -> S3Error? {
        let signed = request.offersS3Credential(query: query)
        // `/` is S3's only when signed with S3's keys; otherwise it is MockCDN's own index.
        if target == .service, !signed { return nil }
        let names = Set(query.raw.map(\.name))
        let named = S3Operation.subresources.intersection(names)
        // HEAD of a sub-resource is its GET without the body.
        let method = request.method == .head && !named.isEmpty ? .get : request.method
        let service = Self.signingService(request, query: query)
        let rows = S3Operation.all.filter { $0.method == method && $0.target == target && $0.service == service }
        // S3 Express One Zone (directory buckets) is another service: none of its operations is served.
        if service != "s3", rows.isEmpty { return .unknownService(service) }
        if let subresource = named.sorted().first(where: { $0 != "select-type" }) ?? named.first {
            guard let row = rows.first(where: { $0.subresource.map(named.contains) ?? false }) else {
                return .methodNotAllowed(request.method, onBucket: target == .bucket)
            }
            if row.answer == .notImplemented { return .notImplemented(row, subresource: subresource) }
        } else if let row = rows.first(where: { $0.subresource == nil }), row.answer == .notImplemented {
            return .notImplemented(row, subresource: nil)
        }
        // A parameter without a value is a sub-resource's shape: one S3 may add, never a plain read or write.
        if request.method != .get && request.method != .head || signed,
            let unknown = query.raw.first(where: {
                !$0.text.contains("=") && !S3Operation.subresources.contains($0.name)
            })
        {
            return .unknownSubresource(unknown.name)
        }
        if target == .object, let version = query.first("versionId"), version != "null" {
            return .invalidVersionID(version)
        }
        return nil
    }

    /// The service a SigV4 credential's scope names (`AKID/DATE/REGION/SERVICE/aws4_request`), in the
    /// `Authorization` header or a presigned query; `s3` for any other credential.
    static func signingService(_ request: Request, query: QueryItems) -> String {
        let credential: Substring
        if let header = request.headers[.authorization], let start = header.range(of: "Credential=") {
            credential = header[start.upperBound...].prefix { $0 != "," && $0 != " " }
        } else if let presigned = query.first("X-Amz-Credential") {
            credential = presigned[...]
        } else {
            return "s3"
        }
        let scope = credential.split(separator: "/", omittingEmptySubsequences: false)
        return scope.count == 5 ? String(scope[3]) : "s3"
    }

    private static func answer(
        _ refusal: S3Error,
        request: Request,
        context: AppRequestContext
    ) async throws -> Response {
        try await ErrorEnvelopeMiddleware<S3Error>().handle(request, context: context) { _, _ in throw refusal }
    }
}
