extension SigV4 {
    /// The payload hash of a request that carries no body, as clients sign it.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// What a verified `Authorization: AWS4-HMAC-SHA256` header said about its request.
    public struct SignedRequest: Sendable, Equatable {
        /// The `x-amz-content-sha256` the client signed: a body's hex SHA-256, `UNSIGNED-PAYLOAD`, or a
        /// `STREAMING-*` mode; the body must still be checked against it.
        public let payloadHash: String
        /// When the request may be replayed by the clock: its date, give or take the allowed skew.
        public let validity: Validity
        /// Where an aws-chunked body's chunk signatures start: the header's signature (the seed), its date,
        /// scope and signing key. Only `STREAMING-AWS4-HMAC-SHA256-PAYLOAD*` bodies use it (`AWSChunkedDecoder`).
        public let streamingSeed: StreamingSeed
    }

    /// Whether a request is signed in its `Authorization` header with SigV4.
    public static func isHeaderSigned(_ authorization: String?) -> Bool {
        authorization?.hasPrefix(algorithm + " ") == true
    }

    /// Checks a request signed in its `Authorization` header (AWS SigV4 as S3 takes it, "Signature Calculations
    /// for the Authorization Header"), against the app's credentials and the clock.
    ///
    /// - Parameters:
    ///   - authorization: the `Authorization` header.
    ///   - method: the HTTP method.
    ///   - path: the path, percent-decoded; it is encoded again as S3 does for the canonical request.
    ///   - query: every query item, percent-decoded (a bare `?location` is `location` with an empty value).
    ///   - header: a header's value by lower-case name; `host` as the client sent it.
    ///   - credentials: the app's.
    ///   - now: the clock's Unix time.
    /// - Returns: the signed payload hash, how long the signature holds by the clock, and the seed of an
    ///   aws-chunked body's signature chain.
    /// - Throws: `AccessDenied` with S3's code: `AuthorizationHeaderMalformed` (400, also for another
    ///   region), `InvalidRequest` (400, no `x-amz-content-sha256`), `InvalidAccessKeyId`,
    ///   `SignatureDoesNotMatch`, `RequestTimeTooSkewed` or `AccessDenied` (403).
    public static func verifyAuthorization(
        _ authorization: String,
        method: String,
        path: String,
        query: [(name: String, value: String)],
        header: (String) -> String?,
        credentials: SigV4Credentials,
        now: Int64
    ) throws(AccessDenied) -> SignedRequest {
        let fields = try Self.authorizationFields(authorization)
        let credential = fields.credential.split(separator: "/", omittingEmptySubsequences: false)
        guard credential.count == 5, credential[3] == credentials.service, credential[4] == "aws4_request" else {
            throw Self.malformedHeader(
                "the Credential is mal-formed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\""
            )
        }
        guard credential[2] == credentials.region else {
            throw AccessDenied(
                "The authorization header is malformed; the region '\(Self.echo(credential[2]))' is wrong; "
                    + "expecting '\(credentials.region)'",
                code: "AuthorizationHeaderMalformed",
                details: [.init("Region", credentials.region)],
                kind: .malformed
            )
        }
        guard credential[0] == credentials.accessKeyID else {
            throw AccessDenied.invalidAccessKeyID
        }
        guard let amzDate = header("x-amz-date"), let date = AmzDate.parseCompact(amzDate) else {
            throw AccessDenied("AWS authentication requires a valid Date or x-amz-date header")
        }
        guard credential[1] == amzDate.prefix(8) else {
            throw Self.malformedHeader(
                "Invalid credential date \"\(Self.echo(credential[1]))\". This date is not the same as X-Amz-Date: "
                    + "\"\(Self.echo(amzDate[...]))\"."
            )
        }
        guard let payloadHash = header("x-amz-content-sha256"), !payloadHash.isEmpty else {
            throw AccessDenied(
                "Missing required header for this request: x-amz-content-sha256",
                code: "InvalidRequest",
                kind: .malformed
            )
        }
        let signedHeaders = fields.signedHeaders
        guard signedHeaders.contains("host"), signedHeaders.contains("x-amz-date"),
            signedHeaders == signedHeaders.sorted(), !signedHeaders.contains("authorization"),
            signedHeaders.allSatisfy({ $0 == $0.lowercased() })
        else {
            throw Self.malformedHeader("SignedHeaders must be sorted lower-case names, with host and x-amz-date")
        }
        let canonical = self.canonicalRequest(
            method: method,
            path: path,
            canonicalQuery: self.canonicalQuery(query),
            signedHeaders: signedHeaders,
            payloadHash: payloadHash,
            header: header
        )
        let day = String(amzDate.prefix(8))
        let key = self.signingKey(credentials, day: day)
        let expected = self.signature(canonical, key: key, credentials: credentials, amzDate: amzDate)
        // Both sides are 64 lower-case hex digits here, so comparing the text is comparing the bytes.
        guard SecureBytes.constantTimeEqual(expected, fields.signature) else {
            throw self.signatureMismatch(
                method: method,
                path: path,
                query: query,
                signedHeaders: signedHeaders,
                payloadHash: payloadHash,
                header: header,
                credentials: credentials,
                amzDate: amzDate
            )
        }
        // Checked after the signature, as S3 does: a forged request learns nothing of the server's clock.
        guard abs(date - now) <= allowedSkew else {
            throw AccessDenied.requestTimeTooSkewed(requestTime: amzDate, now: now, allowedSkew: allowedSkew)
        }
        return SignedRequest(
            payloadHash: payloadHash,
            validity: Validity(notBefore: date - allowedSkew, expiresAt: date + allowedSkew + 1),
            streamingSeed: StreamingSeed(
                signingKey: key,
                amzDate: amzDate,
                scope: self.scope(credentials, day: day),
                seedSignature: fields.signature
            )
        )
    }

    /// `Credential`, `SignedHeaders` and `Signature` of an `Authorization` header, each exactly once.
    private static func authorizationFields(
        _ authorization: String
    ) throws(AccessDenied) -> (credential: String, signedHeaders: [String], signature: String) {
        guard authorization.hasPrefix(algorithm + " ") else {
            throw Self.malformedHeader("the authorization mechanism must be \(algorithm)")
        }
        var fields: [String: String] = [:]
        for part in authorization.dropFirst(algorithm.count + 1).split(separator: ",") {
            let pair = part.drop { $0 == " " }.split(separator: "=", maxSplits: 1)
            let value = pair.count == 2 ? String(pair[1]).trimmingTrailingSpaces : ""
            guard pair.count == 2, fields.updateValue(value, forKey: String(pair[0])) == nil else {
                throw Self.malformedHeader("each of Credential, SignedHeaders and Signature must appear once")
            }
        }
        guard fields.count == 3, let credential = fields["Credential"], let signedHeaders = fields["SignedHeaders"],
            let signature = fields["Signature"]
        else {
            throw Self.malformedHeader("it must carry Credential, SignedHeaders and Signature")
        }
        guard signature.utf8.count == 64, [UInt8](hexString: signature) != nil else {
            throw AccessDenied("Signature must be 64 hexadecimal digits", code: "SignatureDoesNotMatch")
        }
        return (credential, signedHeaders.split(separator: ";").map(String.init), signature.lowercased())
    }

    /// S3's 400 for an `Authorization` header it cannot read.
    private static func malformedHeader(_ reason: String) -> AccessDenied {
        AccessDenied(
            "The authorization header is malformed; " + reason,
            code: "AuthorizationHeaderMalformed",
            kind: .malformed
        )
    }
}

extension String {
    /// Without the spaces at its end.
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
