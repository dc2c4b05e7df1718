/// AWS Signature Version 4 for presigned S3 URLs (query authentication, `UNSIGNED-PAYLOAD`), GETs and
/// uploads' PUTs, both making them and checking them with the same canonical-request code, as boto3 and `aws s3 presign`
/// build them.
public enum SigV4 {
    public static let algorithm = "AWS4-HMAC-SHA256"
    /// S3's longest presigned lifetime: one week.
    public static let maximumExpires: Int64 = 604_800
    /// How far in the future `X-Amz-Date` may lie, as S3 tolerates clock skew.
    public static let allowedSkew: Int64 = 900
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// The query parameters presigning adds; their presence means the request carries a SigV4 credential.
    public static let parameterNames: Set<String> = [
        "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders",
        "X-Amz-Signature",
    ]

    /// Whether a query carries a SigV4 credential.
    ///
    /// - Parameter query: percent-decoded query items.
    /// - Returns: true when any presigning parameter is present.
    public static func isPresent(in query: [(name: String, value: String)]) -> Bool {
        query.contains { parameterNames.contains($0.name) }
    }

    /// Presigns a request for `path` on `authority`: a GET signing only `host` by default, or (for an upload)
    /// another method with more signed headers and parameters.
    ///
    /// - Parameters:
    ///   - method: the method the URL is for.
    ///   - scheme: `http` or `https`.
    ///   - authority: `host` or `host:port`, exactly as clients will send it in `Host`.
    ///   - path: the decoded path, starting with `/` (for MockCDN `/{app}/{key}`).
    ///   - credentials: who signs.
    ///   - date: the signing time, Unix seconds.
    ///   - expires: lifetime in seconds, 1...604800.
    ///   - parameters: more query parameters, signed with the rest.
    ///   - headers: headers besides `host` the request must carry with these values, by lower-case name.
    /// - Returns: the presigned URL.
    public static func presignedURL(
        method: String = "GET",
        scheme: String,
        authority: String,
        path: String,
        credentials: SigV4Credentials,
        date: Int64,
        expires: Int64,
        parameters: [(name: String, value: String)] = [],
        headers: [String: String] = [:]
    ) -> String {
        let amzDate = AmzDate.compact(date)
        let signedHeaders = (["host"] + headers.keys).sorted()
        let query: [(name: String, value: String)] =
            [
                ("X-Amz-Algorithm", algorithm),
                (
                    "X-Amz-Credential",
                    credentials.accessKeyID + "/" + scope(credentials, day: String(amzDate.prefix(8)))
                ),
                ("X-Amz-Date", amzDate),
                ("X-Amz-Expires", String(expires)),
                ("X-Amz-SignedHeaders", signedHeaders.joined(separator: ";")),
            ] + parameters
        let canonicalQuery = self.canonicalQuery(query)
        let canonical = self.canonicalRequest(
            method: method,
            path: path,
            canonicalQuery: canonicalQuery,
            signedHeaders: signedHeaders,
            header: { $0 == "host" ? authority : headers[$0] }
        )
        let signature = self.signature(canonical, credentials: credentials, amzDate: amzDate)
        return scheme + "://" + authority + PercentEncoding.encodePath(path) + "?" + canonicalQuery
            + "&X-Amz-Signature=" + signature
    }

    /// Checks a presigned request: parameters and credential scope, the signature over the canonical
    /// request (in constant time), then the lifetime against the clock.
    ///
    /// - Parameters:
    ///   - query: the percent-decoded query items, in order.
    ///   - method: the request method (`GET`, `HEAD`).
    ///   - path: the decoded path.
    ///   - header: a request header's value by lower-case name (`host` gives the authority).
    ///   - credentials: the app's.
    ///   - now: the clock's Unix time.
    ///   - appendable: parameters a client may add after signing (image transforms, `fat`); the signature
    ///     may cover the query with or without them.
    /// - Returns: when the URL holds by the clock (from its date less the allowed skew until it expires).
    /// - Throws: `AccessDenied` with S3's code and message for the failed rule; a credential scoped to another
    ///   region is `AccessDenied.wrongRegion` (400 `AuthorizationQueryParametersError`).
    @discardableResult
    public static func verify(
        query: [(name: String, value: String)],
        method: String,
        path: String,
        header: (String) -> String?,
        credentials: SigV4Credentials,
        now: Int64,
        appendable: Set<String> = []
    ) throws(AccessDenied) -> Validity {
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        guard value("X-Amz-Algorithm") == algorithm else {
            throw AccessDenied("X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"")
        }
        let credential = (value("X-Amz-Credential") ?? "").split(separator: "/", omittingEmptySubsequences: false)
        guard credential.count == 5 else {
            throw AccessDenied(
                "Error parsing the X-Amz-Credential parameter; the Credential is mal-formed; expecting "
                    + "\"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\"."
            )
        }
        // The region comes before the key, as on S3, where it is part of parsing the credential: whoever holds
        // a URL for the wrong region learns which one is right, whatever key signed it.
        guard credential[2] == credentials.region else {
            throw AccessDenied.wrongRegion(Self.echo(credential[2]), expected: credentials.region)
        }
        guard credential[0] == credentials.accessKeyID else {
            throw AccessDenied.invalidAccessKeyID
        }
        guard let amzDate = value("X-Amz-Date"), let date = AmzDate.parseCompact(amzDate) else {
            throw AccessDenied("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"")
        }
        guard credential[1] == amzDate.prefix(8) else {
            throw AccessDenied(
                "Error parsing the X-Amz-Credential parameter; the date '\(Self.echo(credential[1]))' does not "
                    + "match X-Amz-Date"
            )
        }
        guard credential[3] == credentials.service, credential[4] == "aws4_request" else {
            throw AccessDenied(
                "Error parsing the X-Amz-Credential parameter; the scope must end in "
                    + "\(credentials.service)/aws4_request"
            )
        }
        guard let expiresText = value("X-Amz-Expires"), let expires = Int64(expiresText), expires >= 1 else {
            throw AccessDenied("X-Amz-Expires must be a positive number of seconds")
        }
        guard expires <= maximumExpires else {
            throw AccessDenied("X-Amz-Expires must be less than a week (in seconds) that is 604800")
        }
        let signedHeaders = (value("X-Amz-SignedHeaders") ?? "").split(separator: ";").map(String.init)
        guard signedHeaders.contains("host"), signedHeaders == signedHeaders.sorted(),
            signedHeaders.allSatisfy({ $0 == $0.lowercased() })
        else {
            throw AccessDenied("X-Amz-SignedHeaders must be sorted lower-case names and include host")
        }
        // Only `host`, the content headers and `x-amz-*` may be signed: a mismatch answer shows the canonical
        // request, so a client must not get to pick `authorization` or `cookie` values for it to echo.
        guard
            signedHeaders.allSatisfy({
                Self.signableHeaders.contains($0) || ($0.hasPrefix("x-amz-") && $0 != "x-amz-security-token")
            })
        else {
            throw AccessDenied(
                "X-Amz-SignedHeaders may name only host, content-length, content-md5, content-type "
                    + "and x-amz-* headers"
            )
        }
        guard let provided = value("X-Amz-Signature"), let signature = [UInt8](hexString: provided),
            signature.count == 32
        else {
            throw AccessDenied("X-Amz-Signature must be 64 hexadecimal digits", code: "SignatureDoesNotMatch")
        }

        let unsigned = query.filter { $0.name != "X-Amz-Signature" }
        var queries = [unsigned]
        let withoutAppended = unsigned.filter { !appendable.contains($0.name) }
        if withoutAppended.count != unsigned.count { queries.append(withoutAppended) }
        var matched = false
        for items in queries {
            let canonical = self.canonicalRequest(
                method: method,
                path: path,
                canonicalQuery: self.canonicalQuery(items),
                signedHeaders: signedHeaders,
                header: header
            )
            let expected = self.signature(canonical, credentials: credentials, amzDate: amzDate)
            // Both sides are 64 lower-case hex digits here, so comparing the text is comparing the bytes.
            if SecureBytes.constantTimeEqual(expected, signature.hexString) { matched = true }
        }
        guard matched else {
            throw self.signatureMismatch(
                method: method,
                path: path,
                query: unsigned,
                signedHeaders: signedHeaders,
                payloadHash: unsignedPayload,
                header: header,
                credentials: credentials,
                amzDate: amzDate
            )
        }
        guard date <= now + allowedSkew else { throw AccessDenied("Request is not yet valid") }
        guard now < date + expires else {
            throw AccessDenied.expired(
                at: date + expires,
                details: [
                    .init("X-Amz-Expires", String(expires)),
                    .init("Expires", AmzDate.iso8601(date + expires)),
                    .init("ServerTime", AmzDate.iso8601(now)),
                ]
            )
        }
        return Validity(notBefore: date - allowedSkew, expiresAt: date + expires)
    }

    /// The headers besides `x-amz-*` a presigned URL may sign: botocore signs the content headers of a
    /// presigned PUT given `ContentType`, `ContentMD5` or `ContentLength`.
    public static let signableHeaders: Set<String> = ["host", "content-length", "content-md5", "content-type"]

    /// Query parameters whose values never appear in an error answer.
    static let redactedParameters: Set<String> = ["X-Amz-Security-Token", "fat", "Signature", "Policy"]

    /// Headers whose values never appear in an error answer, though a request may sign them.
    static let redactedHeaders: Set<String> = ["x-amz-security-token", "cookie", "fat"]

    /// S3's `SignatureDoesNotMatch`, with the canonical request MockCDN computed and its string to sign, so a
    /// client can compare them with its signer's. What it shows is computed with the secret-bearing query
    /// parameters and headers redacted.
    static func signatureMismatch(
        method: String,
        path: String,
        query: [(name: String, value: String)],
        signedHeaders: [String],
        payloadHash: String,
        header: (String) -> String?,
        credentials: SigV4Credentials,
        amzDate: String
    ) -> AccessDenied {
        let shown = self.canonicalRequest(
            method: method,
            path: path,
            canonicalQuery: self.canonicalQuery(
                query.map { Self.redactedParameters.contains($0.name) ? ($0.name, "REDACTED") : $0 }
            ),
            signedHeaders: signedHeaders,
            payloadHash: payloadHash,
            header: { Self.redactedHeaders.contains($0) ? "REDACTED" : header($0) }
        )
        return AccessDenied(
            "The request signature we calculated does not match the signature you provided. "
                + "Check your key and signing method.",
            code: "SignatureDoesNotMatch",
            details: [
                .init("AWSAccessKeyId", credentials.accessKeyID),
                .init("StringToSign", self.stringToSign(shown, credentials: credentials, amzDate: amzDate)),
                .init("CanonicalRequest", shown),
            ]
        )
    }

    /// A piece of the client's input fit to appear in a message: short, printable ASCII.
    static func echo(_ text: Substring) -> String {
        String(text.prefix(32).filter { $0.isASCII && $0.asciiValue.map { $0 > 0x20 && $0 < 0x7f } == true })
    }

    // MARK: - Canonical request

    static func scope(_ credentials: SigV4Credentials, day: String) -> String {
        day + "/" + credentials.region + "/" + credentials.service + "/aws4_request"
    }

    /// Every item RFC 3986-encoded, sorted by name then value, joined with `&`.
    static func canonicalQuery(_ items: [(name: String, value: String)]) -> String {
        let encoded: [(name: String, value: String)] = items.map {
            (PercentEncoding.encode($0.name), PercentEncoding.encode($0.value))
        }
        let sorted = encoded.sorted { (lhs, rhs) -> Bool in
            lhs.name == rhs.name ? lhs.value < rhs.value : lhs.name < rhs.name
        }
        return sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
    }

    static func canonicalRequest(
        method: String,
        path: String,
        canonicalQuery: String,
        signedHeaders: [String],
        payloadHash: String = unsignedPayload,
        header: (String) -> String?
    ) -> String {
        var lines = [method, PercentEncoding.encodePath(path), canonicalQuery]
        for name in signedHeaders {
            // Values are trimmed and inner runs of spaces collapse to one.
            let value = (header(name) ?? "").split(separator: " ", omittingEmptySubsequences: true)
                .joined(separator: " ")
            lines.append(name + ":" + value)
        }
        lines.append("")
        lines.append(signedHeaders.joined(separator: ";"))
        lines.append(payloadHash)
        return lines.joined(separator: "\n")
    }

    static func stringToSign(_ canonicalRequest: String, credentials: SigV4Credentials, amzDate: String) -> String {
        [
            algorithm, amzDate, scope(credentials, day: String(amzDate.prefix(8))),
            Digest.sha256(canonicalRequest).hexString,
        ]
        .joined(separator: "\n")
    }

    /// The hex signature of a canonical request: the string to sign under the day's signing key.
    static func signature(_ canonicalRequest: String, credentials: SigV4Credentials, amzDate: String) -> String {
        self.signature(
            canonicalRequest,
            key: self.signingKey(credentials, day: String(amzDate.prefix(8))),
            credentials: credentials,
            amzDate: amzDate
        )
    }

    /// The hex signature of a canonical request under a signing key already derived for its day.
    static func signature(
        _ canonicalRequest: String,
        key: [UInt8],
        credentials: SigV4Credentials,
        amzDate: String
    ) -> String {
        HMAC.sha256(self.stringToSign(canonicalRequest, credentials: credentials, amzDate: amzDate), key: key)
            .hexString
    }

    /// The signing key of a day: HMAC chain `AWS4`+secret, day, region, service, `aws4_request`. Requests,
    /// aws-chunked bodies and POST policies (`PostPolicy`) are signed with it. As secret as the secret for
    /// that day, region and service; never shown.
    ///
    /// - Parameters:
    ///   - credentials: who signs.
    ///   - day: `yyyyMMdd`.
    /// - Returns: 32 bytes.
    static func signingKey(_ credentials: SigV4Credentials, day: String) -> [UInt8] {
        var key = HMAC.sha256(day, key: "AWS4" + credentials.secretAccessKey)
        for part in [credentials.region, credentials.service, "aws4_request"] { key = HMAC.sha256(part, key: key) }
        return key
    }
}
