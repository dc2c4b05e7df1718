import HTTPTypes
import Hummingbird
import MockCDNCore

/// A request's S3 query authentication (SigV4 or SigV2, path-style: the app id is the bucket), checked with
/// the app's keys: the one check behind presigned reads and presigned PUTs.
enum PresignedRequest {
    /// Checks the request's S3 query authentication, SigV4 or SigV2, whichever it carries.
    ///
    /// - Parameters:
    ///   - request: the request, whose method and signed headers count.
    ///   - app: whose credentials sign.
    ///   - key: the object the path names.
    ///   - query: the request's query.
    ///   - now: the clock's Unix time.
    /// - Returns: which kind of presigned query passed.
    /// - Throws: `SignatureRefusal` naming the failed rule, or that the request carries neither.
    static func verify(
        _ request: Request,
        app: MediaApp,
        key: ObjectKey,
        query: QueryItems,
        now: Int64
    ) throws(SignatureRefusal) -> CredentialSource {
        do throws(AccessDenied) {
            if SigV4.isPresent(in: query.decoded) {
                _ = try self.verifySigV4(request, app: app, key: key, query: query, now: now)
                return .presigned
            }
            if SigV2.isPresent(in: query.decoded) {
                try self.verifySigV2(request, app: app, query: query, now: now)
                return .presignedV2
            }
            throw AccessDenied(
                "a \(request.method.rawValue) needs a presigned URL: SigV4 (X-Amz-*) or SigV2 (AWSAccessKeyId) query"
            )
        } catch {
            // Told apart from other refusals (a FAT's), which an API may word differently.
            throw SignatureRefusal(denial: error)
        }
    }

    /// The `Host` a client signed: without a default port, as botocore and browsers send it.
    static func host(of request: Request) -> String? {
        request.head.authority.map(HostAuthority.withoutDefaultPort)
    }

    /// The request's headers as a signature reads them, by lower-case name; `host` as the client signed it.
    static func signedHeader(of request: Request) -> (String) -> String? {
        let host = self.host(of: request)
        return { name in name == "host" ? host : HTTPField.Name(name).flatMap { request.headers[$0] } }
    }

    /// Checks a SigV4 presigned query on `request` for `key`.
    ///
    /// - Parameters:
    ///   - request: the request, whose method and signed headers count.
    ///   - app: whose credentials sign.
    ///   - key: the object the path names.
    ///   - query: the request's query.
    ///   - now: the clock's Unix time.
    ///   - appendable: parameters a client may add after signing.
    /// - Returns: when the URL holds.
    /// - Throws: `AccessDenied` naming the failed rule.
    static func verifySigV4(
        _ request: Request,
        app: MediaApp,
        key: ObjectKey,
        query: QueryItems,
        now: Int64,
        appendable: Set<String> = []
    ) throws(AccessDenied) -> Validity {
        try SigV4.verify(
            query: query.decoded,
            method: request.method.rawValue,
            path: VirtualHost.signedPath("/" + key.rawValue, of: request),
            header: self.signedHeader(of: request),
            credentials: app.sigV4Credentials,
            now: now,
            appendable: appendable
        )
    }

    /// Checks a SigV2 presigned query (`AWSAccessKeyId`, `Expires`, `Signature`) on `request`.
    ///
    /// - Throws: `AccessDenied` naming the failed rule.
    static func verifySigV2(_ request: Request, app: MediaApp, query: QueryItems, now: Int64) throws(AccessDenied) {
        try SigV2.verify(
            query: query.decoded,
            method: request.method.rawValue,
            path: request.uri.path,
            headers: request.headers.map { ($0.name.canonicalName, $0.value) },
            accessKeyID: app.sigV4Credentials.accessKeyID,
            secretAccessKey: app.sigV4Credentials.secretAccessKey,
            now: now
        )
    }
}
