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
    ///   that is not the app's); what a leading check throws (400 for conflicting FATs).
    func authorize(
        _ request: Request,
        context: AppRequestContext,
        app: MediaApp,
        key: ObjectKey,
        query: QueryItems
    ) throws -> CredentialSource {
        let now = self.clock.unixSeconds
        var firstFailure: AccessDenied?
        var sawCredential = false
        func attempt(_ check: () throws(AccessDenied) -> Void) -> Bool {
            sawCredential = true
            do {
                try check()
                return true
            } catch {
                if firstFailure == nil { firstFailure = error }
                return false
            }
        }

        for check in self.leading {
            if let credential = try check.find(in: request, query: query),
                attempt({ () throws(AccessDenied) in
                    try self.verified.check(credential.cacheKey + [app.id], now: now) { () throws(AccessDenied) in
                        (try credential.verify(app, now), nil)
                    }
                })
            {
                return credential.source
            }
        }
        let rawQuery = request.uri.query ?? ""
        if SigV4.isPresent(in: query.decoded),
            attempt({ () throws(AccessDenied) in
                let host = PresignedRequest.host(of: request)
                // Only host, content-* and x-amz-* headers may be signed: with the query, they are all SigV4 reads.
                let signable = request.headers.filter {
                    $0.name.canonicalName.hasPrefix("x-amz-") || SigV4.signableHeaders.contains($0.name.canonicalName)
                }
                let parts =
                    ["sigv4", app.id, request.method.rawValue, key.rawValue, host ?? "", rawQuery]
                    + signable.map { $0.name.canonicalName + ":" + $0.value }
                try self.verified.check(parts, now: now) { () throws(AccessDenied) in
                    let validity = try PresignedRequest.verifySigV4(
                        request,
                        app: app,
                        key: key,
                        query: query,
                        now: now,
                        appendable: self.appendableParameters
                    )
                    return (validity, nil)
                }
            })
        {
            return .presigned
        }
        let sigV2 = SigV2.isPresent(in: query.decoded)
        if sigV2,
            attempt({ () throws(AccessDenied) in
                try PresignedRequest.verifySigV2(request, app: app, query: query, now: now)
            })
        {
            return .presignedV2
        }
        func cloudFront(_ credential: CloudFrontCredential, parts: [String]) -> Bool {
            attempt { () throws(AccessDenied) in
                let keyHolds = { (id: String) in app.keyPair(id: id)?.verifies ?? false }
                try self.verified.check(parts, now: now, keyHolds: keyHolds) { () throws(AccessDenied) in
                    let validity = try CloudFrontVerifier.verify(
                        credential,
                        resources: self.cloudFrontResources(request, query: query),
                        now: now,
                        clientAddress: context.remoteAddress
                    ) { app.keyPair(id: $0) }
                    return (validity, credential.keyPairID)
                }
            }
        }
        // The resources a link is checked against come from the public URL, the Host, the path and the query;
        // the client address from the connection.
        let requestParts = [
            app.id, self.links.baseURL, request.head.authority ?? "", request.uri.path, rawQuery,
            context.remoteAddress ?? "",
        ]
        // With `AWSAccessKeyId`, `Signature` and `Expires` are SigV2's: such a URL is never judged as a
        // CloudFront link, whose refusal ("need Key-Pair-Id") would send an AWS user the wrong way.
        let signedURL = sigV2 ? nil : CloudFrontCredential(query: query.decoded)
        if let signedURL, cloudFront(signedURL, parts: ["cloudfront"] + requestParts) {
            return .cloudfront
        }
        // Signed cookies count only when the URL carries no CloudFront signature: CloudFront judges a request
        // that has a signed URL by the URL alone, whatever cookies come with it.
        if signedURL == nil, let cookies = CloudFrontCredential(cookie: { request.cookies[$0]?.value }),
            cloudFront(
                cookies,
                parts: ["cloudfront-cookie"] + requestParts + [
                    cookies.signature, cookies.keyPairID, cookies.policy ?? "", cookies.expires ?? "",
                    cookies.hashAlgorithm ?? "",
                ]
            )
        {
            return .cloudfrontCookie
        }
        guard sawCredential, let failure = firstFailure else { throw S3Error.missingCredential() }
        throw S3Error.accessDenied(failure)
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
