extension SigV4 {
    /// The headers that sign a request in the `Authorization` header (AWS SigV4, as S3 takes it): `x-amz-date`,
    /// `x-amz-content-sha256`, `x-amz-security-token` with temporary credentials, and `authorization`. Every
    /// header in `headers` is signed, with `host`.
    ///
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - host: the `Host` header as sent (with a port when it is not the scheme's).
    ///   - path: the path, not encoded; it goes on the wire as `PercentEncoding.encodePath(path)`.
    ///   - query: the query items, not encoded.
    ///   - headers: other headers to sign, names in lower case (`range`, `content-type`, `x-amz-meta-*`).
    ///   - payloadHash: the body's SHA-256 in lower-case hex, or `UNSIGNED-PAYLOAD`.
    ///   - credentials: key, secret and region.
    ///   - sessionToken: AWS_SESSION_TOKEN, when the credentials are temporary.
    ///   - date: the request's time, Unix seconds.
    /// - Returns: the headers to add, names in lower case.
    public static func authorizationHeaders(
        method: String,
        host: String,
        path: String,
        query: [(name: String, value: String)] = [],
        headers: [String: String] = [:],
        payloadHash: String,
        credentials: SigV4Credentials,
        sessionToken: String? = nil,
        date: Int64
    ) -> [(name: String, value: String)] {
        let amzDate = AmzDate.compact(date)
        var signed = headers
        signed["host"] = host
        signed["x-amz-date"] = amzDate
        signed["x-amz-content-sha256"] = payloadHash
        if let sessionToken { signed["x-amz-security-token"] = sessionToken }
        let names = signed.keys.sorted()
        let canonical = self.canonicalRequest(
            method: method,
            path: path,
            canonicalQuery: self.canonicalQuery(query),
            signedHeaders: names,
            payloadHash: payloadHash,
            header: { signed[$0] }
        )
        let signature = self.signature(canonical, credentials: credentials, amzDate: amzDate)
        let credential = credentials.accessKeyID + "/" + self.scope(credentials, day: String(amzDate.prefix(8)))
        var added: [(name: String, value: String)] = [("x-amz-date", amzDate), ("x-amz-content-sha256", payloadHash)]
        if let sessionToken { added.append(("x-amz-security-token", sessionToken)) }
        added.append(
            (
                "authorization",
                "\(algorithm) Credential=\(credential),SignedHeaders=\(names.joined(separator: ";")),Signature=\(signature)"
            )
        )
        return added
    }
}
