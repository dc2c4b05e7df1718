import HTTPTypes
import Hummingbird
import MockCDNCore

/// Decides whether a media read (`GET|HEAD /{app}/{key}`) may go ahead. Any one valid credential of the
/// request is enough: a FAT (header or query; CometChat's `FATReadCheck`, handed in as one of `leading`), a
/// SigV4 or SigV2 presigned query, a CloudFront signed URL, or
/// CloudFront signed cookies (only when the URL carries no CloudFront signature, as on CloudFront).
/// None at all is 401; when every one fails, the first failed rule answers (FAT, then SigV4, then SigV2, then
/// CloudFront): 403, or 400 for a SigV4 URL scoped to another region.
///
/// FAT, SigV4 and CloudFront credentials that passed are remembered in `verified`, which checks the clock
/// (and a CloudFront key's status) again at every hit; see `VerifiedCredentialCache`.
struct MediaReadAuthorizer: Sendable {
    let clock: MockClock
    let links: LinkSigner
    let verified: VerifiedCredentialCache
    /// Credentials other surfaces define, asked first, in order.
    let leading: [any ReadCredentialCheck]
    /// Query parameters a client may append to a signed link: image transforms (as Stream's SDKs do, `ro`
    /// included) and the leading credentials' (a FAT, as CometChat's SDKs do). None is part of what MockCDN
    /// signs.
    let appendableParameters: Set<String>

    init(clock: MockClock, links: LinkSigner, verified: VerifiedCredentialCache, leading: [any ReadCredentialCheck]) {
        self.clock = clock
        self.links = links
        self.verified = verified
        self.leading = leading
        self.appendableParameters = leading.reduce(ImageTransform.parameterNames) { $0.union($1.appendableParameters) }
    }

    /// Checks the request's credentials.
    ///
    /// - Parameters:
    ///   - request: the read.
    ///   - context: its context (client address for CloudFront `IpAddress` conditions).
    ///   - app: the app read from.
    ///   - key: the object read.
    ///   - query: the request's query.
    /// - Returns: which credential passed.
    /// - Throws: `S3Error` 401 with no credential; the first `AccessDenied` (403, or 400 for a SigV4 region
    ///   that is not the app's); what a leading check throws (400 for conflicting FATs); 400 `InvalidURI` for a
    ///   key that only S3 addresses (a dot or empty segment) read with a credential that is not S3's.
    func authorize(
        _ request: Request,
        context: AppRequestContext,
        app: MediaApp,
        key: ObjectKey,
        query: QueryItems
    ) throws -> CredentialSource {
        // Links, FATs and CloudFront address media paths only; an S3 request, any key S3 takes. A key that is
        // no media path is refused first unless S3's credentials are offered, and then unless they passed.
        let mediaPath = key.isMediaPath
        if !mediaPath, !request.offersS3Credential(query: query) { try key.requireMediaPath() }
        let source = try self.credential(request, context: context, app: app, key: key, query: query)
        if !mediaPath, !source.addressesAnyKey { try key.requireMediaPath() }
        return source
    }

    /// The credential that passes, whatever the key.
    private func credential(
        _ request: Request,
        context: AppRequestContext,
        app: MediaApp,
        key: ObjectKey,
        query: QueryItems
    ) throws -> CredentialSource {
        let read = Read(
            request: request,
            context: context,
            app: app,
            key: key,
            query: query,
            now: self.clock.unixSeconds
        )
        var attempts = Attempts()
        for check in self.leading {
            if let credential = try check.find(in: request, query: query),
                attempts.pass({ () throws(AccessDenied) in
                    guard let cacheKey = credential.cacheKey else {
                        _ = try credential.verify(app, read.now)
                        return
                    }
                    try self.verified.check(cacheKey + [app.id], now: read.now) { () throws(AccessDenied) in
                        (try credential.verify(app, read.now), nil)
                    }
                })
            {
                return credential.source
            }
        }
        if let source = self.presigned(read, attempts: &attempts) { return source }
        if let source = self.cloudFront(read, attempts: &attempts) { return source }
        guard let failure = attempts.firstFailure else { throw S3Error.missingCredential() }
        throw S3Error.accessDenied(failure)
    }

    /// What a read's credentials are judged on.
    private struct Read {
        let request: Request
        let context: AppRequestContext
        let app: MediaApp
        let key: ObjectKey
        let query: QueryItems
        let now: Int64

        var rawQuery: String { self.request.uri.query ?? "" }
    }

    /// The credentials tried so far: any one that holds is enough; when none does, the first refusal answers.
    private struct Attempts {
        private(set) var firstFailure: AccessDenied?

        /// Runs one credential's check; false (and the refusal kept, if it is the first) when it fails.
        mutating func pass(_ check: () throws(AccessDenied) -> Void) -> Bool {
            do {
                try check()
                return true
            } catch {
                if self.firstFailure == nil { self.firstFailure = error }
                return false
            }
        }
    }

    /// A SigV4 presigned query (remembered when it holds), then a SigV2 one.
    private func presigned(_ read: Read, attempts: inout Attempts) -> CredentialSource? {
        let request = read.request
        if SigV4.isPresent(in: read.query.decoded),
            attempts.pass({ () throws(AccessDenied) in
                // Only host, content-* and x-amz-* headers may be signed: with the query, they are all SigV4 reads.
                let signable = request.headers.filter {
                    $0.name.canonicalName.hasPrefix("x-amz-") || SigV4.signableHeaders.contains($0.name.canonicalName)
                }
                let parts =
                    [
                        "sigv4", read.app.id, request.method.rawValue, read.key.rawValue,
                        PresignedRequest.host(of: request) ?? "", read.rawQuery,
                    ]
                    + signable.map { $0.name.canonicalName + ":" + $0.value }
                try self.verified.check(parts, now: read.now) { () throws(AccessDenied) in
                    let validity = try PresignedRequest.verifySigV4(
                        request,
                        app: read.app,
                        key: read.key,
                        query: read.query,
                        now: read.now,
                        appendable: self.appendableParameters
                    )
                    return (validity, nil)
                }
            })
        {
            return .presigned
        }
        if SigV2.isPresent(in: read.query.decoded),
            attempts.pass({ () throws(AccessDenied) in
                try PresignedRequest.verifySigV2(request, app: read.app, query: read.query, now: read.now)
            })
        {
            return .presignedV2
        }
        return nil
    }

    /// A CloudFront signed URL, or else signed cookies, each remembered when it holds.
    private func cloudFront(_ read: Read, attempts: inout Attempts) -> CredentialSource? {
        let request = read.request
        func holds(_ credential: CloudFrontCredential, parts: [String]) -> Bool {
            attempts.pass { () throws(AccessDenied) in
                let keyHolds = { (id: String) in read.app.keyPair(id: id)?.verifies ?? false }
                try self.verified.check(parts, now: read.now, keyHolds: keyHolds) { () throws(AccessDenied) in
                    let validity = try CloudFrontVerifier.verify(
                        credential,
                        resources: self.cloudFrontResources(request, query: read.query),
                        now: read.now,
                        clientAddress: read.context.remoteAddress
                    ) { read.app.keyPair(id: $0) }
                    return (validity, credential.keyPairID)
                }
            }
        }
        // The resources a link is checked against come from the public URL, the Host, the path and the query;
        // the client address from the connection.
        let requestParts = [
            read.app.id, self.links.baseURL, request.head.authority ?? "", request.uri.path, read.rawQuery,
            read.context.remoteAddress ?? "",
        ]
        // With `AWSAccessKeyId`, `Signature` and `Expires` are SigV2's: such a URL is never judged as a
        // CloudFront link, whose refusal ("need Key-Pair-Id") would send an AWS user the wrong way.
        let signedURL = SigV2.isPresent(in: read.query.decoded) ? nil : CloudFrontCredential(query: read.query.decoded)
        if let signedURL, holds(signedURL, parts: ["cloudfront"] + requestParts) {
            return .cloudfront
        }
        // Signed cookies count only when the URL carries no CloudFront signature: CloudFront judges a request
        // that has a signed URL by the URL alone, whatever cookies come with it.
        if signedURL == nil, let cookies = CloudFrontCredential(cookie: { request.cookies[$0]?.value }),
            holds(
                cookies,
                parts: ["cloudfront-cookie"] + requestParts + [
                    cookies.signature, cookies.keyPairID, cookies.policy ?? "", cookies.expires ?? "",
                    cookies.hashAlgorithm ?? "",
                ]
            )
        {
            return .cloudfrontCookie
        }
        return nil
    }

    /// The URLs the request may have been signed as: under the Host header and under the public URL, with
    /// the query minus signing parameters, and also minus appendable parameters.
    private func cloudFrontResources(_ request: Request, query: QueryItems) -> [String] {
        var bases = [self.links.baseURL]
        if let host = request.head.authority { bases.append("http://" + host) }
        let unsigned = query.raw.filter { !CloudFrontCredential.parameterNames.contains($0.name) }
        let unappended = unsigned.filter { !self.appendableParameters.contains($0.name) }
        var queries = [QueryItems.join(unappended)]
        if unsigned.count != unappended.count { queries.append(QueryItems.join(unsigned)) }
        var candidates: [String] = []
        for base in Set(bases) {
            for query in queries {
                candidates.append(base + request.uri.path + (query.isEmpty ? "" : "?" + query))
            }
        }
        return candidates
    }
}
