import Foundation

/// AWS Signature Version 2 query-string authentication for S3 (`AWSAccessKeyId`, `Expires`, `Signature`):
/// what boto3 and awscli v1 still presign with by default for `us-east-1` and the other regions that accept
/// it. Making such URLs and checking them share one string-to-sign.
public enum SigV2 {
    /// The parameters query-string authentication adds.
    public static let parameterNames: Set<String> = ["AWSAccessKeyId", "Expires", "Signature"]

    /// The query parameters that belong to the signed resource: S3's documented sub-resources and `response-*`
    /// overrides, plus the later sub-resources botocore signs too, since real clients sign what botocore
    /// signs. Every other parameter is outside the signature, so image transforms and `fat` may be appended.
    static let signedSubresources: Set<String> = [
        "accelerate", "acl", "analytics", "cors", "defaultObjectAcl", "delete", "inventory", "legal-hold",
        "lifecycle", "location", "logging", "metrics", "notification", "object-lock", "partNumber", "policy",
        "replication", "requestPayment", "response-cache-control", "response-content-disposition",
        "response-content-encoding", "response-content-language", "response-content-type", "response-expires",
        "restore", "retention", "select", "select-type", "storageClass", "tagging", "torrent", "uploadId",
        "uploads", "versionId", "versioning", "versions", "website",
    ]

    /// The longest `Expires` read: ten digits reach the year 2286, and S3 sets SigV2 no lifetime limit of its
    /// own to follow.
    static let maximumExpiresDigits = 10

    /// Query parameters whose values never appear in an error answer (they can reach the string to sign as
    /// `x-amz-*` parameters).
    static let redactedParameters: Set<String> = ["x-amz-security-token"]

    /// Whether a query carries a SigV2 credential. `AWSAccessKeyId` alone decides: it is what tells SigV2's
    /// `Signature` and `Expires` from a CloudFront link's.
    ///
    /// - Parameter query: percent-decoded query items.
    /// - Returns: true when `AWSAccessKeyId` is present.
    public static func isPresent(in query: [(name: String, value: String)]) -> Bool {
        query.contains { $0.name == "AWSAccessKeyId" }
    }

    /// Presigns a GET of `path` on `authority` until `expires`, as botocore does (parameter order included).
    ///
    /// - Parameters:
    ///   - scheme: `http` or `https`.
    ///   - authority: `host` or `host:port`; SigV2 does not sign it.
    ///   - path: the decoded path, starting with `/` (for MockCDN `/{app}/{key}`, path-style).
    ///   - accessKeyID: the app's API key.
    ///   - secretAccessKey: the app's API secret.
    ///   - expires: the Unix time the URL stops working, 0...9999999999.
    /// - Returns: the presigned URL.
    public static func presignedURL(
        scheme: String,
        authority: String,
        path: String,
        accessKeyID: String,
        secretAccessKey: String,
        expires: Int64
    ) -> String {
        let encodedPath = PercentEncoding.encodePath(path)
        let stringToSign = self.stringToSign(
            method: "GET",
            contentMD5: "",
            contentType: "",
            expires: String(expires),
            amzHeaders: [],
            resource: encodedPath
        )
        let signature = Base64.encode(self.signature(stringToSign, secretAccessKey: secretAccessKey), .standard)
        return scheme + "://" + authority + encodedPath + "?AWSAccessKeyId=" + PercentEncoding.encode(accessKeyID)
            + "&Signature=" + PercentEncoding.encode(signature) + "&Expires=" + String(expires)
    }

    /// Checks a query-authenticated request: the three parameters, the access key, `Expires`, the signature
    /// (in constant time), then the clock.
    ///
    /// - Parameters:
    ///   - query: the percent-decoded query items, in order.
    ///   - method: the request method (`GET`, `HEAD`); it is signed.
    ///   - path: the path exactly as the request sent it, percent-encoding kept (S3 signs it that way).
    ///   - headers: the request's headers; `Content-MD5`, `Content-Type` and `x-amz-*` ones are signed.
    ///   - accessKeyID: the app's API key.
    ///   - secretAccessKey: the app's API secret.
    ///   - now: the clock's Unix time.
    /// - Throws: `AccessDenied` with S3's code and message for the failed rule.
    public static func verify(
        query: [(name: String, value: String)],
        method: String,
        path: String,
        headers: [(name: String, value: String)],
        accessKeyID: String,
        secretAccessKey: String,
        now: Int64
    ) throws(AccessDenied) {
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        guard let key = value("AWSAccessKeyId"), !key.isEmpty, let expiresText = value("Expires"),
            !expiresText.isEmpty, let provided = value("Signature"), !provided.isEmpty
        else {
            throw AccessDenied(
                "Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters"
            )
        }
        guard key == accessKeyID else {
            throw AccessDenied.invalidAccessKeyID
        }
        guard expiresText.utf8.count <= maximumExpiresDigits, expiresText.utf8.allSatisfy({ (48...57).contains($0) }),
            let expires = Int64(expiresText)
        else {
            throw AccessDenied("Invalid date (should be seconds since epoch): \(SigV4.echo(Substring(expiresText)))")
        }

        func stringToSign(redacting: Bool) -> String {
            self.stringToSign(
                method: method,
                query: query,
                path: path,
                headers: headers,
                expires: expiresText,
                redacting: redacting
            )
        }
        let expected = self.signature(stringToSign(redacting: false), secretAccessKey: secretAccessKey)
        // Not base64 is compared as empty, so it is a mismatch like any other wrong signature.
        let signature = Base64.decode(provided, .standard) ?? []
        guard SecureBytes.constantTimeEqual(signature, expected) else {
            throw self.signatureMismatch(accessKeyID: accessKeyID, stringToSign: stringToSign(redacting: true))
        }
        // S3 refuses a request received after `Expires`, so the second it names still works.
        guard now <= expires else {
            throw AccessDenied.expired(
                at: expires,
                details: [.init("Expires", AmzDate.iso8601(expires)), .init("ServerTime", AmzDate.iso8601(now))]
            )
        }
    }

    /// S3's `SignatureDoesNotMatch` for a SigV2 signature, presigned or in the header: the key and the string
    /// MockCDN signed (secrets redacted), never the signature.
    static func signatureMismatch(accessKeyID: String, stringToSign: String) -> AccessDenied {
        AccessDenied(
            "The request signature we calculated does not match the signature you provided. "
                + "Check your key and signing method.",
            code: "SignatureDoesNotMatch",
            details: [.init("AWSAccessKeyId", accessKeyID), .init("StringToSign", stringToSign)]
        )
    }

    // MARK: - String to sign

    /// The string to sign of a request. Query authentication moves signed headers into the query (botocore
    /// puts `Content-MD5`, `Content-Type` and `x-amz-*` there), so those parameters count as headers.
    ///
    /// - Parameters:
    ///   - method: the request method.
    ///   - query: the percent-decoded query items.
    ///   - path: the path as sent.
    ///   - headers: the request's headers.
    ///   - expires: `Expires` as sent.
    ///   - redacting: replace secret values (for an error answer; then it is not what was verified).
    /// - Returns: the newline-separated string to sign.
    static func stringToSign(
        method: String,
        query: [(name: String, value: String)],
        path: String,
        headers: [(name: String, value: String)],
        expires: String,
        redacting: Bool
    ) -> String {
        let lowered = headers.map { (name: $0.name.lowercased(), value: $0.value) }
        func header(_ name: String) -> String {
            lowered.first { $0.name == name }?.value ?? query.first { $0.name.lowercased() == name }?.value ?? ""
        }
        let amz = (lowered + query.map { (name: $0.name.lowercased(), value: $0.value) })
            .filter { $0.name.hasPrefix("x-amz-") }
            .map { redacting && redactedParameters.contains($0.name) ? (name: $0.name, value: "REDACTED") : $0 }
        return self.stringToSign(
            method: method,
            contentMD5: header("content-md5"),
            contentType: header("content-type"),
            expires: expires,
            amzHeaders: amz,
            resource: self.canonicalizedResource(path: path, query: query)
        )
    }

    /// `VERB\nContent-MD5\nContent-Type\nExpires\n` + CanonicalizedAmzHeaders + CanonicalizedResource.
    ///
    /// - Parameters:
    ///   - method: the request method.
    ///   - contentMD5: the `Content-MD5` value, or empty.
    ///   - contentType: the `Content-Type` value, or empty.
    ///   - expires: `Expires` as sent (the date, for header authentication).
    ///   - amzHeaders: the headers, of which the `x-amz-*` ones are signed.
    ///   - resource: the canonicalized resource.
    /// - Returns: the string to sign.
    static func stringToSign(
        method: String,
        contentMD5: String,
        contentType: String,
        expires: String,
        amzHeaders: [(name: String, value: String)],
        resource: String
    ) -> String {
        [method, contentMD5, contentType, expires].joined(separator: "\n") + "\n"
            + self.canonicalizedAmzHeaders(amzHeaders) + resource
    }

    /// Each `x-amz-*` name lower-cased, once, sorted, its values trimmed and joined with `,`: `name:v1,v2\n`.
    ///
    /// - Parameter headers: any headers; others than `x-amz-*` are left out.
    /// - Returns: the CanonicalizedAmzHeaders element, each line ending in `\n`.
    static func canonicalizedAmzHeaders(_ headers: [(name: String, value: String)]) -> String {
        var values: [String: [String]] = [:]
        for (name, value) in headers {
            let name = name.lowercased()
            guard name.hasPrefix("x-amz-") else { continue }
            // Folded lines become one space, as S3 unfolds them before signing.
            let unfolded = value.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            values[name, default: []].append(unfolded.joined(separator: " "))
        }
        return values.keys.sorted().map { $0 + ":" + values[$0]!.joined(separator: ",") + "\n" }.joined()
    }

    /// The path, then `?` and the signed sub-resources sorted by name (in query order for one name), their
    /// values decoded; a sub-resource without a value is its name alone (`?acl`).
    ///
    /// - Parameters:
    ///   - path: the path as sent, starting with the bucket (the app id).
    ///   - query: the percent-decoded query items.
    /// - Returns: the CanonicalizedResource element.
    static func canonicalizedResource(path: String, query: [(name: String, value: String)]) -> String {
        let signed = query.enumerated().filter { signedSubresources.contains($0.element.name) }
            .sorted { $0.element.name == $1.element.name ? $0.offset < $1.offset : $0.element.name < $1.element.name }
            .map(\.element)
        guard !signed.isEmpty else { return path }
        return path + "?" + signed.map { $0.value.isEmpty ? $0.name : $0.name + "=" + $0.value }.joined(separator: "&")
    }

    /// HMAC-SHA1 of the string to sign under the secret.
    ///
    /// - Parameters:
    ///   - stringToSign: the string to sign.
    ///   - secretAccessKey: the app's API secret.
    /// - Returns: 20 bytes, base64 in a URL.
    static func signature(_ stringToSign: String, secretAccessKey: String) -> [UInt8] {
        HMAC.sha1(stringToSign, key: secretAccessKey)
    }
}
