/// Why a credential on a media read was refused; it becomes the S3/CloudFront-style XML error body, so it
/// names the rule that failed and never echoes a token or signature.
public struct AccessDenied: Error, Sendable, Equatable, CustomStringConvertible {
    /// An element S3 adds after `Message`, e.g. `Expires` and `ServerTime` on an expired presigned URL.
    public struct Detail: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// How S3 answers the refusal: most are 403; a credential that does not even fit this endpoint, one scoped
    /// to another region, is a malformed request to S3: 400, naming the right region.
    public enum Kind: Sendable, Equatable {
        case forbidden
        case malformed
    }

    /// S3's error code: `AccessDenied`, `SignatureDoesNotMatch`, `InvalidAccessKeyId` or
    /// `AuthorizationQueryParametersError`.
    public let code: String
    public let message: String
    public let details: [Detail]
    public let kind: Kind
    /// The expiry the credential names (Unix seconds, judged by the MockCDN clock), on a refusal for expiry only:
    /// the request journal keeps it (`expired_at`), so a near miss can say how long before the request the
    /// credential expired. Never the credential itself.
    public let expiredAt: Int64?

    public init(
        _ message: String,
        code: String = "AccessDenied",
        details: [Detail] = [],
        kind: Kind = .forbidden,
        expiredAt: Int64? = nil
    ) {
        self.code = code
        self.message = message
        self.details = details
        self.kind = kind
        self.expiredAt = expiredAt
    }

    public var description: String { self.message }

    /// S3's answer to a presigned URL scoped to another region: 400, naming the expected region in the message
    /// and in a `Region` element, as S3 does.
    ///
    /// - Parameters:
    ///   - provided: the credential's region, already made safe to echo.
    ///   - expected: the app's S3 region.
    /// - Returns: the refusal.
    public static func wrongRegion(_ provided: String, expected: String) -> AccessDenied {
        AccessDenied(
            "Error parsing the X-Amz-Credential parameter; the region '\(provided)' is wrong; expecting '\(expected)'",
            code: "AuthorizationQueryParametersError",
            details: [Detail("Region", expected)],
            kind: .malformed
        )
    }

    /// S3's text for a presigned URL past its expiry; every expiry refusal says it.
    public static let expiredMessage = "Request has expired"

    /// S3's refusal of a link past its expiry, which the journal dates.
    ///
    /// - Parameters:
    ///   - expiredAt: when the link stopped holding, Unix seconds by the MockCDN clock.
    ///   - details: S3's elements after `Message` (`Expires`, `ServerTime`).
    /// - Returns: the refusal.
    public static func expired(at expiredAt: Int64, details: [Detail] = []) -> AccessDenied {
        AccessDenied(expiredMessage, details: details, expiredAt: expiredAt)
    }

    /// S3's refusal of a header-signed request whose date lies more than the allowed skew from the server's
    /// clock (SigV4's `x-amz-date`, SigV2's `Date` or `x-amz-date`): 403 `RequestTimeTooSkewed`.
    ///
    /// - Parameters:
    ///   - requestTime: the request's date as it sent it, already made safe to echo.
    ///   - now: the clock's Unix time.
    ///   - allowedSkew: the skew S3 tolerates, in seconds.
    /// - Returns: the refusal, with `RequestTime`, `ServerTime` and `MaxAllowedSkewMilliseconds`.
    public static func requestTimeTooSkewed(requestTime: String, now: Int64, allowedSkew: Int64) -> AccessDenied {
        AccessDenied(
            "The difference between the request time and the current time is too large.",
            code: "RequestTimeTooSkewed",
            details: [
                Detail("RequestTime", requestTime),
                Detail("ServerTime", AmzDate.iso8601(now)),
                Detail("MaxAllowedSkewMilliseconds", String(allowedSkew * 1000)),
            ]
        )
    }

    /// Whether the credential was refused only because its time had passed (the rest held).
    public var isExpiry: Bool { self.message == Self.expiredMessage }
    public static let signatureMismatch = AccessDenied("Signature does not match")
    /// An access key id that is not the app's: S3's `InvalidAccessKeyId`, for every S3 signature version.
    public static let invalidAccessKeyID = AccessDenied(
        "The AWS Access Key Id you provided does not exist in our records.",
        code: "InvalidAccessKeyId"
    )
    /// CloudFront's own codes and text for a missing key id, an unknown one and an unreadable policy; the
    /// `Rule` detail keeps MockCDN's account of what failed.
    public static let missingKeyPair = AccessDenied(
        "Missing Key-Pair-Id query parameter or cookie value",
        code: "MissingKey",
        details: [
            Detail(
                "Rule",
                "a CloudFront link needs Signature and Key-Pair-Id; signed cookies need CloudFront-Signature and "
                    + "CloudFront-Key-Pair-Id"
            )
        ]
    )
    public static let unknownKeyPair = AccessDenied(
        "Unknown Key",
        code: "InvalidKey",
        details: [Detail("Rule", "the Key-Pair-Id is not one of this app's CloudFront keys")]
    )
    public static let retiredKeyPair = AccessDenied("Key-Pair-Id is retired")
    public static let malformedPolicy = AccessDenied(
        "Malformed Policy",
        code: "MalformedPolicy",
        details: [
            Detail(
                "Rule",
                "the policy must be CloudFront base64 of one JSON statement with a Resource and DateLessThan"
            )
        ]
    )
    public static let resourceMismatch = AccessDenied("Resource is not covered by the policy")
    public static let notYetValid = AccessDenied("Request is not yet valid (DateGreaterThan)")
    public static let sourceIPMismatch = AccessDenied("Source IP is not allowed by the policy")
}
