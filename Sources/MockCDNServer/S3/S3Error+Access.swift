import HTTPTypes

extension S3Error {
    /// 400 `InvalidRequest`: a canned ACL and grant headers together, which S3 refuses.
    static let cannedAndGrants = S3Error(
        status: .badRequest,
        code: "InvalidRequest",
        message: "Specifying both Canned ACLs and Header Grants is not allowed"
    )

    /// 400 `MalformedACLError`: an `AccessControlPolicy` document S3 cannot read as one.
    static let malformedACL = S3Error(
        status: .badRequest,
        code: "MalformedACLError",
        message: "The XML you provided was not well-formed or did not validate against our published schema"
    )

    /// 400 `MissingSecurityHeader`: a PutObjectAcl that names no ACL at all (no header, no document).
    static let missingACL = S3Error(
        status: .badRequest,
        code: "MissingSecurityHeader",
        message: "Your request was missing a required header",
        details: [("MissingHeaderName", "x-amz-acl")]
    )

    /// 400 `UnexpectedContent`: a PutObjectAcl with both ACL headers and a document.
    static let aclHeadersAndBody = S3Error(
        status: .badRequest,
        code: "UnexpectedContent",
        message: "This request does not support content"
    )

    /// 403 `AccessDenied`: an `AccessControlPolicy` whose owner is not the object's; S3 does not let an ACL
    /// give an object away.
    static let foreignOwner = S3Error(status: .forbidden, code: "AccessDenied", message: "Access Denied")

    /// 400 `InvalidArgument` for an ACL header or field value S3 does not take.
    ///
    /// - Parameters:
    ///   - name: the header (`x-amz-acl`, `x-amz-grant-read`).
    ///   - value: its value, as sent (cut to 256 characters).
    ///   - message: S3's words.
    static func invalidACLArgument(_ name: String, _ value: String, message: String = "") -> S3Error {
        S3Error(
            status: .badRequest,
            code: "InvalidArgument",
            message: message,
            details: [("ArgumentName", name), ("ArgumentValue", String(value.prefix(256)))]
        )
    }

    /// 400 `UnresolvableGrantByEmailAddress`: a grantee named by e-mail address. MockCDN knows no AWS account by
    /// its address (and S3 takes such grantees in a few older regions only).
    static func unresolvableEmail(_ address: String) -> S3Error {
        S3Error(
            status: .badRequest,
            code: "UnresolvableGrantByEmailAddress",
            message: "The email address you provided does not match any account on record.",
            details: [("EmailAddress", String(address.prefix(256)))]
        )
    }

    /// 400 `InvalidTag` with S3's words for the rule broken.
    static func invalidTag(_ message: String) -> S3Error {
        S3Error(status: .badRequest, code: "InvalidTag", message: message)
    }

    /// 400 `BadRequest`: more than 10 tags on an object, in the code and words S3 answers it with.
    static let tooManyTags = S3Error(
        status: .badRequest,
        code: "BadRequest",
        message: "Object tags cannot be greater than 10"
    )

    /// 400 `InvalidArgument`: an `x-amz-tagging-directive` that is neither `COPY` nor `REPLACE`.
    static func invalidTaggingDirective(_ value: String) -> S3Error {
        S3Error(
            status: .badRequest,
            code: "InvalidArgument",
            message: "Unknown tagging directive.",
            details: [("ArgumentName", "x-amz-tagging-directive"), ("ArgumentValue", String(value.prefix(64)))]
        )
    }
}
