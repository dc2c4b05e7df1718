extension PostPolicy {
    /// Checks a browser upload's form as S3 does, in S3's order: the size of the fields, the required fields,
    /// the credential, the signature over the policy text as sent, the policy, its expiration and conditions.
    ///
    /// A form carrying any of `x-amz-algorithm`, `x-amz-credential`, `x-amz-date`, `x-amz-signature` is SigV4
    /// (`x-amz-signature` = hex HMAC-SHA256 of the base64 policy under the day's signing key); else one carrying
    /// `AWSAccessKeyId` or `signature` is SigV2 (base64 HMAC-SHA1 of the base64 policy under the secret), as
    /// boto3 signs with `signature_version="s3"`; else it is anonymous, which no app accepts.
    ///
    /// - Parameters:
    ///   - fields: the form's fields before `file` (S3 ignores the ones after it), names as sent; values with
    ///     `${filename}` expanded (`expandingFilename(_:filename:)`).
    ///   - bucket: the bucket the form was posted to (the app's id).
    ///   - key: the object's key: the `key` field, expanded.
    ///   - credentials: the app's key, secret and S3 region.
    ///   - now: the clock's Unix time.
    /// - Returns: the policy, whose `contentLengthRange` the server enforces on the file
    ///   (`checkContentLength(_:)`).
    /// - Throws: `PostPolicyRefusal` with S3's code and message for the first rule that fails.
    @discardableResult
    public static func verify(
        fields: [(name: String, value: String)],
        bucket: String,
        key: String,
        credentials: SigV4Credentials,
        now: Int64
    ) throws(PostPolicyRefusal) -> PostPolicy {
        // Names and values only: what S3 counts (boundaries and part headers) is more, so a form this refuses,
        // S3 refuses too. The server bounds the bytes it reads itself.
        guard fields.reduce(0, { $0 + $1.name.utf8.count + $1.value.utf8.count }) <= maximumFormLength else {
            throw .formTooLarge
        }
        // "The post parameters are case insensitive" (AWS's SigV4 POST example); the first of a name counts.
        func value(_ name: String) -> String? {
            fields.first { $0.name.lowercased() == name.lowercased() }?.value
        }
        // S3 reads no field after `file`, so a `key` sent after it is missing too: "Bucket POST must contain a field
        // named 'key'.  ..." (https://github.com/ryuzee/SlideHub/issues/213).
        _ = try required("key", value)
        let policy: String
        if sigV4Fields.contains(where: { value($0) != nil }) {
            policy = try self.verifySigV4(value: value, credentials: credentials)
        } else if value("AWSAccessKeyId") != nil || value("Signature") != nil {
            policy = try self.verifySigV2(value: value, credentials: credentials)
        } else {
            // With no credential S3 takes the form as anonymous: 403 on a bucket that is not publicly writable
            // (LocalStack's `TestS3PresignedPost`, a form of `key` and `policy` only).
            throw .anonymous
        }
        let parsed = try self.parse(policy)
        try parsed.check(fields: fields, bucket: bucket, key: key, now: now)
        return parsed
    }

    /// The hex SigV4 signature of a POST policy: HMAC-SHA256 of the base64 text under the signing key of the
    /// `x-amz-date`'s day, the region and the service.
    ///
    /// - Parameters:
    ///   - policy: the `policy` field, base64, exactly as the form carries it.
    ///   - credentials: who signs.
    ///   - day: `yyyyMMdd`, the credential scope's date.
    /// - Returns: 64 lower-case hexadecimal digits, the `x-amz-signature` field.
    public static func sigV4Signature(policy: String, credentials: SigV4Credentials, day: String) -> String {
        HMAC.sha256(policy, key: SigV4.signingKey(credentials, day: day)).hexString
    }

    /// The SigV2 signature of a POST policy: HMAC-SHA1 of the base64 text under the secret.
    ///
    /// - Parameters:
    ///   - policy: the `policy` field, base64, exactly as the form carries it.
    ///   - secretAccessKey: the app's API secret.
    /// - Returns: the `signature` field, base64.
    public static func sigV2Signature(policy: String, secretAccessKey: String) -> String {
        Base64.encode(HMAC.sha1(policy, key: secretAccessKey), .standard)
    }

    // MARK: - SigV4

    /// The SigV4 fields, in the order S3 names a missing one (`X-Amz-Algorithm` before `X-Amz-Credential`).
    static let sigV4Fields = ["X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Signature"]

    /// The credential rules `SigV4.verify` applies to a presigned URL (region before key, the scope's date,
    /// service and terminal), answered as S3 answers a form: 400 `InvalidArgument` naming the field.
    ///
    /// - Returns: the policy text the signature covers.
    private static func verifySigV4(
        value: (String) -> String?,
        credentials: SigV4Credentials
    ) throws(PostPolicyRefusal) -> String {
        // "Bucket POST must contain a field named 'X-Amz-Signature'.  ..." (LocalStack's `TestS3PresignedPost`);
        // every field is looked for before any is read.
        let algorithm = try required("X-Amz-Algorithm", value)
        let credentialText = try required("X-Amz-Credential", value)
        let amzDate = try required("X-Amz-Date", value)
        let provided = try required("X-Amz-Signature", value)
        let policy = try required("Policy", value)
        // S3's text for a form is not recorded; this is its text for a presigned URL.
        guard algorithm == SigV4.algorithm else {
            throw .invalidArgument(
                "X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"",
                field: "X-Amz-Algorithm",
                value: algorithm
            )
        }
        func invalidCredential(_ message: String, more: [AccessDenied.Detail] = []) -> PostPolicyRefusal {
            .invalidArgument(message, field: "X-Amz-Credential", value: credentialText, more: more)
        }
        let credential = credentialText.split(separator: "/", omittingEmptySubsequences: false)
        guard credential.count == 5 else {
            throw invalidCredential(
                "the Credential is mal-formed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\"."
            )
        }
        // https://github.com/outline/outline/issues/7060.
        guard !credential[0].isEmpty else {
            throw invalidCredential("a non-empty Access Key (AKID) must be provided in the credential.")
        }
        // S3's answer to a form scoped to another region: a presigned URL's text without its "Error parsing the
        // X-Amz-Credential parameter; " (https://github.com/CulturalMe/meteor-slingshot/issues/150). The region
        // comes before the key, as for presigned URLs.
        guard credential[2] == credentials.region else {
            throw invalidCredential(
                "the region '\(PostPolicyRefusal.printable(credential[2], limit: 32))' is wrong; expecting "
                    + "'\(credentials.region)'",
                more: [.init("Region", credentials.region)]
            )
        }
        guard credential[0] == credentials.accessKeyID else { throw .invalidAccessKeyID }
        // "X-Amz-Date must be formated via ISO8601 Long format", S3's spelling
        // (https://github.com/michaeldyrynda/s3upload/issues/1).
        guard AmzDate.parseCompact(amzDate) != nil else {
            throw .invalidArgument(
                "X-Amz-Date must be formated via ISO8601 Long format",
                field: "X-Amz-Date",
                value: amzDate
            )
        }
        // The signing key is the credential's day's: one that is not the X-Amz-Date's day is refused, as
        // `SigV4.verify` refuses it.
        guard credential[1] == amzDate.prefix(8) else {
            throw invalidCredential(
                "the date '\(PostPolicyRefusal.printable(credential[1], limit: 32))' does not match X-Amz-Date"
            )
        }
        guard credential[3] == credentials.service, credential[4] == "aws4_request" else {
            throw invalidCredential("the scope must end in \(credentials.service)/aws4_request")
        }
        // Anything but 64 hex digits is compared as empty bytes: a mismatch like any other.
        let signature = [UInt8](hexString: provided) ?? []
        let expected = HMAC.sha256(policy, key: SigV4.signingKey(credentials, day: String(credential[1])))
        guard SecureBytes.constantTimeEqual(signature, expected) else {
            throw .signatureMismatch(accessKeyID: credentials.accessKeyID, policy: policy)
        }
        return policy
    }

    // MARK: - SigV2

    /// SigV2's fields, then the key and the signature.
    ///
    /// - Returns: the policy text the signature covers.
    private static func verifySigV2(
        value: (String) -> String?,
        credentials: SigV4Credentials
    ) throws(PostPolicyRefusal) -> String {
        // LocalStack's `TestS3PresignedPost` recorded the missing `AWSAccessKeyId` and `Signature` answers.
        let accessKeyID = try required("AWSAccessKeyId", value)
        let provided = try required("Signature", value)
        let policy = try required("Policy", value)
        guard accessKeyID == credentials.accessKeyID else { throw .invalidAccessKeyID }
        // Not base64 is compared as empty bytes: a mismatch like any other.
        let signature = Base64.decode(provided, .standard) ?? []
        guard SecureBytes.constantTimeEqual(signature, HMAC.sha1(policy, key: credentials.secretAccessKey)) else {
            throw .signatureMismatch(accessKeyID: credentials.accessKeyID, policy: policy)
        }
        return policy
    }

    /// A field the form must carry, not empty (S3 answers an empty one with an empty `ArgumentValue`).
    private static func required(
        _ name: String,
        _ value: (String) -> String?
    ) throws(PostPolicyRefusal) -> String {
        guard let found = value(name), !found.isEmpty else { throw .missingField(name) }
        return found
    }
}
