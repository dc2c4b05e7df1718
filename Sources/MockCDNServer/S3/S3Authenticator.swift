import Foundation
import Hummingbird
import MockCDNCore
import NIOCore

/// Who may make an S3 request that carries no body or a small one read whole (a listing, a delete, a batch
/// delete): the app's keys, in the `Authorization` header (SigV4) or in a presigned query (SigV4; SigV2 for an
/// object too).
enum S3Authenticator {
    /// The app the path's first segment names: the bucket, a configured app or one created at run time (read
    /// again from a shared store when not known here, as another instance may have created it).
    ///
    /// - Throws: 404 `NoSuchBucket` when there is none.
    static func app(_ context: AppRequestContext, in apps: AppRegistry) async throws -> MediaApp {
        guard let app = try await apps.app(refreshing: try context.parameters.require("app")) else {
            throw S3Error.noSuchApp()
        }
        return app
    }

    /// The request's credential, checked.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - app: the bucket's app.
    ///   - key: the object, or nil for a bucket request.
    ///   - query: the request's query.
    ///   - now: the clock's Unix time.
    ///   - payload: the body, read whole, of a request that has one (DeleteObjects' XML); nil for none.
    /// - Returns: which credential passed, for the journal.
    /// - Throws: `AccessDenied` or `SignatureRefusal` with S3's code; 403 `AccessDenied` for no credential;
    ///   400 `XAmzContentSHA256Mismatch` for a body that is not the one signed.
    static func authenticate(
        _ request: Request,
        app: MediaApp,
        key: ObjectKey?,
        query: QueryItems,
        now: Int64,
        payload: ByteBuffer? = nil
    ) async throws -> CredentialSource {
        if HeaderSignature.isPresent(in: request) {
            if let payload {
                let signed = try HeaderSignature.verify(request, app: app, query: query, now: now)
                let sha256 = try await Digest.taken(over: payload.readableBytes) { Digest.sha256(payload) }
                let summary = ObjectIntake.Summary(size: payload.readableBytes, sha256: sha256)
                try PayloadPromise(signed).check(summary)
            } else {
                _ = try HeaderSignature.verifyBodiless(request, app: app, query: query, now: now)
            }
            return .headerSigV4
        }
        if HeaderSignature.isSigV2(request) {
            try HeaderSignature.verifySigV2(request, app: app, query: query, now: now)
            return .headerSigV2
        }
        if let key {
            return try PresignedRequest.verify(request, app: app, key: key, query: query, now: now)
        }
        guard SigV4.isPresent(in: query.decoded) else {
            throw AccessDenied("Access Denied: sign the request with the app's key")
        }
        try SigV4.verify(
            query: query.decoded,
            method: request.method.rawValue,
            path: HeaderSignature.path(of: request),
            header: PresignedRequest.signedHeader(of: request),
            credentials: app.sigV4Credentials,
            now: now
        )
        return .presigned
    }

    /// The configured app whose S3 keys signed a request that names no bucket it needs to find first
    /// (ListBuckets, or CreateBucket of a bucket that is not there yet), found by the access key id of its
    /// credential, and the credential, checked with that app's keys.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - apps: the apps served.
    ///   - query: the request's query.
    ///   - now: the clock's Unix time.
    ///   - payload: the body, read whole, of a request that has one; nil for none.
    /// - Returns: the app and which credential passed.
    /// - Throws: 403 `AccessDenied` without a credential, `InvalidAccessKeyId` for a key no app has, and what
    ///   `authenticate` throws.
    static func account(
        _ request: Request,
        apps: AppRegistry,
        query: QueryItems,
        now: Int64,
        payload: ByteBuffer? = nil
    ) async throws -> (app: MediaApp, source: CredentialSource) {
        guard let id = Self.accessKeyID(of: request, query: query) else {
            throw AccessDenied("Access Denied: sign the request with the app's key")
        }
        guard let app = apps.app(apiKey: id) else { throw AccessDenied.invalidAccessKeyID }
        return (app, try await Self.authenticate(request, app: app, key: nil, query: query, now: now, payload: payload))
    }

    /// The access key id a request's S3 credential names: in a SigV4 or SigV2 `Authorization` header, or a
    /// SigV4 or SigV2 presigned query.
    static func accessKeyID(of request: Request, query: QueryItems) -> String? {
        let authorization = request.headers[.authorization] ?? ""
        if SigV4.isHeaderSigned(authorization), let start = authorization.range(of: "Credential=") {
            return String(authorization[start.upperBound...].prefix { $0 != "/" && $0 != "," && $0 != " " })
        }
        if SigV2.isHeaderSigned(authorization) { return String(authorization.dropFirst(4).prefix { $0 != ":" }) }
        if let credential = query.first("X-Amz-Credential") { return String(credential.prefix { $0 != "/" }) }
        return query.first("AWSAccessKeyId")
    }

    /// An object request whose credential checked out: its app (the bucket), key, query and credential.
    struct ObjectRequest {
        let app: MediaApp
        let key: ObjectKey
        let query: QueryItems
        let source: CredentialSource
    }

    /// The app, key and credential of a request to an object that carries no body, or a small one read whole
    /// (a delete, a multipart call).
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - context: its context, with the route's `app` parameter.
    ///   - apps: the apps served.
    ///   - now: the clock's Unix time.
    ///   - payload: the body, read whole, of a request that has one; nil for none.
    /// - Returns: the request, authenticated.
    /// - Throws: 404 `NoSuchBucket`, 400 `InvalidURI` for the key, and what `authenticate` throws.
    static func object(
        _ request: Request,
        context: AppRequestContext,
        apps: AppRegistry,
        now: Int64,
        payload: ByteBuffer? = nil
    ) async throws -> ObjectRequest {
        let app = try await Self.app(context, in: apps)
        let key = try ObjectKey(app: app.id, percentEncodedPath: request.uri.path)
        let query = context.query(of: request)
        let source = try await Self.authenticate(
            request,
            app: app,
            key: key,
            query: query,
            now: now,
            payload: payload
        )
        return ObjectRequest(app: app, key: key, query: query, source: source)
    }

    /// The app, key and credential of a request whose body streams into the store (PutObject, UploadPart),
    /// checked before a byte of the body is read, and what its signature promises about that body.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - context: its context, with the route's `app` parameter.
    ///   - apps: the apps served.
    ///   - now: the clock's Unix time.
    /// - Returns: the request, authenticated, and the promise to hold the body to (none for a presigned query
    ///   or SigV2).
    /// - Throws: 404 `NoSuchBucket`, 400 `InvalidURI`; `AccessDenied` or `SignatureRefusal` with S3's code;
    ///   what `PayloadPromise` throws for an `x-amz-content-sha256` it does not take.
    static func objectWithBody(
        _ request: Request,
        context: AppRequestContext,
        apps: AppRegistry,
        now: Int64
    ) async throws -> (request: ObjectRequest, promise: PayloadPromise) {
        let app = try await Self.app(context, in: apps)
        let key = try ObjectKey(app: app.id, percentEncodedPath: request.uri.path)
        let query = context.query(of: request)
        let (source, promise): (CredentialSource, PayloadPromise)
        if HeaderSignature.isPresent(in: request) {
            let signed = try HeaderSignature.verify(request, app: app, query: query, now: now)
            (source, promise) = (.headerSigV4, try PayloadPromise(signed))
        } else if HeaderSignature.isSigV2(request) {
            // SigV2 signs no payload.
            try HeaderSignature.verifySigV2(request, app: app, query: query, now: now)
            (source, promise) = (.headerSigV2, .unsigned)
        } else {
            (source, promise) = (
                try PresignedRequest.verify(request, app: app, key: key, query: query, now: now), .unsigned
            )
        }
        return (ObjectRequest(app: app, key: key, query: query, source: source), promise)
    }
}
