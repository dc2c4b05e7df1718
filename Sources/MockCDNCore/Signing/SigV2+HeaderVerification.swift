import Foundation

extension SigV2 {
    /// Whether an `Authorization` header is S3's SigV2 (`AWS AccessKeyId:Signature`), as boto3 sends it with
    /// `signature_version="s3"`.
    public static func isHeaderSigned(_ authorization: String?) -> Bool {
        authorization?.hasPrefix("AWS ") ?? false
    }

    /// Checks a request signed in its `Authorization` header with SigV2: the string to sign is the
    /// presigned one's with the request's date (`Date`, or empty when `x-amz-date` is sent and signed among
    /// the `x-amz-*` headers) in place of `Expires`. The date must lie within 15 minutes of `now`, and is
    /// judged before the signature, as S3 judges a SigV2 request.
    ///
    /// - Parameters:
    ///   - authorization: the `Authorization` header.
    ///   - method: the request method.
    ///   - path: the path as the request sent it, percent-encoding kept, starting with the bucket.
    ///   - query: the percent-decoded query items (signed sub-resources count).
    ///   - headers: the request's headers.
    ///   - accessKeyID: the app's API key.
    ///   - secretAccessKey: the app's API secret.
    ///   - now: the clock's Unix time.
    /// - Throws: `AccessDenied`: 400 `AuthorizationHeaderMalformed`-like `InvalidArgument` for a header that
    ///   cannot be read, 403 `InvalidAccessKeyId`, `AccessDenied` without a date or with one before 1970,
    ///   `RequestTimeTooSkewed`, `SignatureDoesNotMatch`.
    public static func verifyAuthorization(
        _ authorization: String,
        method: String,
        path: String,
        query: [(name: String, value: String)],
        headers: [(name: String, value: String)],
        accessKeyID: String,
        secretAccessKey: String,
        now: Int64
    ) throws(AccessDenied) {
        let credential = authorization.dropFirst("AWS ".count)
        guard let colon = credential.lastIndex(of: ":"), colon != credential.startIndex else {
            throw AccessDenied(
                "AWS authorization header is invalid.  Expected AwsAccessKeyId:signature",
                code: "InvalidArgument",
                details: [.init("ArgumentName", "Authorization")],
                kind: .malformed
            )
        }
        guard credential[..<colon] == accessKeyID else { throw AccessDenied.invalidAccessKeyID }
        let provided = credential[credential.index(after: colon)...]
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
        // A date before the epoch is no date to S3 (ceph's s3-tests, `test_object_create_bad_date_before_epoch_aws2`).
        guard let dateText = header("x-amz-date") ?? header("date"), let date = HTTPDate.parse(dateText),
            date.timeIntervalSince1970 >= 0
        else {
            throw AccessDenied("AWS authentication requires a valid Date or x-amz-date header")
        }
        // Before the signature: S3 answers a SigV2 request dated far from its clock `RequestTimeTooSkewed`,
        // whatever the signature (ceph's s3-tests `test_object_create_bad_date_before_today_aws2` and
        // `..._after_end_aws2`, where botocore signs its own `Date` beside an `x-amz-date` of 2010 or 9999).
        let requestTime = Int64(date.timeIntervalSince1970)
        guard abs(requestTime - now) <= SigV4.allowedSkew else {
            throw AccessDenied.requestTimeTooSkewed(
                requestTime: Self.echo(dateText),
                now: now,
                allowedSkew: SigV4.allowedSkew
            )
        }
        func stringToSign(redacting: Bool) -> String {
            self.headerStringToSign(method: method, path: path, query: query, headers: headers, redacting: redacting)
        }
        let expected = self.signature(stringToSign(redacting: false), secretAccessKey: secretAccessKey)
        let signature = Base64.decode(provided, .standard) ?? []
        guard SecureBytes.constantTimeEqual(signature, expected) else {
            throw self.signatureMismatch(accessKeyID: accessKeyID, stringToSign: stringToSign(redacting: true))
        }
    }

    /// A request's date as S3 echoes it in `RequestTime`: as sent (`Tue, 07 Jul 2010 21:53:04 GMT`), kept to
    /// printable ASCII and 64 characters, since it comes from the client.
    static func echo(_ date: String) -> String {
        String(
            String.UnicodeScalarView(date.unicodeScalars.lazy.filter { (0x20..<0x7f).contains($0.value) }.prefix(64))
        )
    }

    /// The string to sign of a request signed in its `Authorization` header: the presigned one's with the
    /// `Date` header in place of `Expires`, or an empty line when `x-amz-date` is sent, which is then signed
    /// among the `x-amz-*` headers. That is the rule AWS's "Time stamp requirement" states and boto 2, Ceph RGW
    /// and pithos follow; the same page's Delete example breaks it (the `x-amz-date` value on the date line, the
    /// header itself left out), and MockCDN refuses that example's signature.
    ///
    /// - Parameters:
    ///   - method: the request method.
    ///   - path: the path as sent, starting with the bucket.
    ///   - query: the percent-decoded query items.
    ///   - headers: the request's headers.
    ///   - redacting: replace secret values (for an error answer; then it is not what was verified).
    /// - Returns: the newline-separated string to sign.
    static func headerStringToSign(
        method: String,
        path: String,
        query: [(name: String, value: String)],
        headers: [(name: String, value: String)],
        redacting: Bool = false
    ) -> String {
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
        let amz = headers.filter { $0.name.lowercased().hasPrefix("x-amz-") }
        return self.stringToSign(
            method: method,
            contentMD5: header("content-md5") ?? "",
            contentType: header("content-type") ?? "",
            expires: header("x-amz-date") == nil ? header("date") ?? "" : "",
            amzHeaders: redacting
                ? amz.map { redactedParameters.contains($0.name.lowercased()) ? ($0.name, "REDACTED") : $0 } : amz,
            resource: self.canonicalizedResource(path: path, query: query)
        )
    }
}
