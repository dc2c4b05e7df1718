import HTTPTypes
import Hummingbird
import MockCDNCore

/// A request's `Authorization: AWS4-HMAC-SHA256` header, checked with the app's keys (path-style: the app id
/// is the bucket): the one check behind every header-signed S3 request.
enum HeaderSignature {
    /// Whether the request is signed in its header with SigV4.
    static func isPresent(in request: Request) -> Bool {
        SigV4.isHeaderSigned(request.headers[.authorization])
    }

    /// Checks the SigV4 `Authorization` header of a request that carries no body (a read, a delete, a
    /// listing): its signed payload hash must be the empty body's or `UNSIGNED-PAYLOAD`.
    ///
    /// - Throws: `AccessDenied` with S3's code; 400 `XAmzContentSHA256Mismatch` for another payload hash.
    static func verifyBodiless(
        _ request: Request,
        app: MediaApp,
        query: QueryItems,
        now: Int64
    ) throws(AccessDenied) -> SigV4.SignedRequest {
        let signed = try self.verify(request, app: app, query: query, now: now)
        guard signed.payloadHash == SigV4.emptyPayloadHash || signed.payloadHash == SigV4.unsignedPayload else {
            throw AccessDenied(
                "The provided 'x-amz-content-sha256' header does not match what was computed.",
                code: "XAmzContentSHA256Mismatch",
                kind: .malformed
            )
        }
        return signed
    }

    /// The request's path as a signature covers it: percent-decoded (the canonical request encodes it again),
    /// without the app of a virtual-hosted request.
    static func path(of request: Request) -> String {
        VirtualHost.signedPath(PercentEncoding.decode(request.uri.path.utf8) ?? request.uri.path, of: request)
    }

    /// Whether the request is signed in its header with SigV2 (`AWS AccessKeyId:Signature`).
    static func isSigV2(_ request: Request) -> Bool {
        SigV2.isHeaderSigned(request.headers[.authorization])
    }

    /// Checks the request's SigV2 `Authorization` header. SigV2 signs no payload, and signs a bucket's own
    /// resource as `/{app}/`.
    ///
    /// - Throws: `AccessDenied` with S3's code for the failed rule.
    static func verifySigV2(_ request: Request, app: MediaApp, query: QueryItems, now: Int64) throws(AccessDenied) {
        let path = request.uri.path
        try SigV2.verifyAuthorization(
            request.headers[.authorization] ?? "",
            method: request.method.rawValue,
            path: path.dropFirst().contains("/") ? path : path + "/",
            query: query.decoded,
            headers: request.headers.map { ($0.name.canonicalName, $0.value) },
            accessKeyID: app.sigV4Credentials.accessKeyID,
            secretAccessKey: app.sigV4Credentials.secretAccessKey,
            now: now
        )
    }

    /// Checks the request's SigV4 `Authorization` header.
    ///
    /// - Parameters:
    ///   - request: the request, whose method, path, query and signed headers count.
    ///   - app: whose credentials sign.
    ///   - query: the request's query.
    ///   - now: the clock's Unix time.
    /// - Returns: the signed payload hash and how long the signature holds.
    /// - Throws: `AccessDenied` with S3's code for the failed rule.
    static func verify(
        _ request: Request,
        app: MediaApp,
        query: QueryItems,
        now: Int64
    ) throws(AccessDenied) -> SigV4.SignedRequest {
        try SigV4.verifyAuthorization(
            request.headers[.authorization] ?? "",
            method: request.method.rawValue,
            path: self.path(of: request),
            query: query.decoded,
            header: PresignedRequest.signedHeader(of: request),
            credentials: app.sigV4Credentials,
            now: now
        )
    }
}
