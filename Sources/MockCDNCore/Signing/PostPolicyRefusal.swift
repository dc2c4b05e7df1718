/// Why a browser upload (S3 POST Object with a POST policy) was refused, in S3's own code and message, so it
/// renders as the XML error S3 sends. It names the rule that failed and never echoes a signature: the only
/// client text it repeats is field names, a credential scope, a timestamp and the policy itself.
///
/// The codes and texts are S3's as clients recorded them (see `PostPolicy`); where no recording of S3's answer
/// exists, the code is the one S3 gives its neighbours and the message says what failed.
public struct PostPolicyRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// How S3 answers: `forbidden` is 403; `malformed` and `tooLarge` are 400 (S3 answers even
    /// `EntityTooLarge` to a POST with 400), `tooLarge` telling other APIs' renderers it is a size limit.
    public enum Kind: Sendable, Equatable {
        /// 403: the policy or credential does not allow this upload.
        case forbidden
        /// 400: the form or the policy cannot be read.
        case malformed
        /// 400 on S3: the form fields or the file exceed a limit.
        case tooLarge
    }

    /// S3's error code: `AccessDenied`, `SignatureDoesNotMatch`, `InvalidAccessKeyId`, `InvalidArgument`,
    /// `InvalidPolicyDocument`, `EntityTooLarge`, `EntityTooSmall` or `MaxPostPreDataLengthExceeded`.
    public let code: String
    /// S3's message.
    public let message: String
    /// The elements S3 adds after `Message`, in order (`ArgumentName`, `MaxSizeAllowed`, ...).
    public let details: [AccessDenied.Detail]
    /// How S3 answers it.
    public let kind: Kind
    /// The policy's `expiration` (Unix seconds, judged by the MockCDN clock), on a refusal for expiry only: the
    /// request journal keeps it (`expired_at`).
    public let expiredAt: Int64?

    init(
        _ message: String,
        code: String,
        details: [AccessDenied.Detail] = [],
        kind: Kind,
        expiredAt: Int64? = nil
    ) {
        self.code = code
        self.message = message
        self.details = details
        self.kind = kind
        self.expiredAt = expiredAt
    }

    /// The code and the message.
    public var description: String { self.code + ": " + self.message }

    // MARK: - The form

    /// A form without a SigV4 or SigV2 credential: S3 takes it as anonymous, which only a publicly writable
    /// bucket accepts, and an app is never one.
    public static let anonymous = PostPolicyRefusal("Access Denied", code: "AccessDenied", kind: .forbidden)

    /// A required field is missing or empty: S3's text, two spaces after the first period included, then
    /// `ArgumentName` and an empty `ArgumentValue` (https://github.com/ryuzee/SlideHub/issues/213,
    /// https://github.com/danialfarid/ng-file-upload/issues/1283).
    ///
    /// - Parameter name: the field, spelled as S3 names it (`key`, `X-Amz-Signature`, `AWSAccessKeyId`).
    /// - Returns: the refusal (400 `InvalidArgument`).
    public static func missingField(_ name: String) -> PostPolicyRefusal {
        PostPolicyRefusal(
            "Bucket POST must contain a field named '\(name)'.  If it is specified, please check the order of the "
                + "fields.",
            code: "InvalidArgument",
            details: [.init("ArgumentName", name), .init("ArgumentValue", "")],
            kind: .malformed
        )
    }

    /// The fields before the file exceed `PostPolicy.maximumFormLength`: S3's code and message, its misspelling
    /// ("preceeding") and grammar included.
    public static let formTooLarge = PostPolicyRefusal(
        "Your POST request fields preceeding the upload file was too large.",
        code: "MaxPostPreDataLengthExceeded",
        details: [.init("MaxPostPreDataLengthBytes", String(PostPolicy.maximumFormLength))],
        kind: .tooLarge
    )

    // MARK: - The policy

    /// A policy S3 cannot read: 400 `InvalidPolicyDocument`.
    ///
    /// - Parameter reason: what S3 says after "Invalid Policy: " (`Invalid JSON.`).
    /// - Returns: the refusal.
    public static func invalidPolicy(_ reason: String) -> PostPolicyRefusal {
        PostPolicyRefusal("Invalid Policy: " + reason, code: "InvalidPolicyDocument", kind: .malformed)
    }

    /// The policy's `expiration` has passed.
    ///
    /// - Parameter expiration: the policy's `expiration`, Unix seconds.
    /// - Returns: the refusal, which the journal dates.
    public static func expired(at expiration: Int64) -> PostPolicyRefusal {
        PostPolicyRefusal(
            "Invalid according to Policy: Policy expired.",
            code: "AccessDenied",
            kind: .forbidden,
            expiredAt: expiration
        )
    }

    /// A condition the form does not meet, printed as S3 prints it.
    ///
    /// - Parameter condition: the condition as JSON, a simple one as `eq` (`["eq", "$acl", "private"]`).
    /// - Returns: the refusal (403 `AccessDenied`).
    public static func conditionFailed(_ condition: String) -> PostPolicyRefusal {
        PostPolicyRefusal(
            "Invalid according to Policy: Policy Condition failed: " + condition,
            code: "AccessDenied",
            kind: .forbidden
        )
    }

    /// Form fields no condition covers.
    ///
    /// - Parameter names: the fields, as the form spelled them.
    /// - Returns: the refusal (403 `AccessDenied`).
    public static func extraInputFields(_ names: [String]) -> PostPolicyRefusal {
        PostPolicyRefusal(
            "Invalid according to Policy: Extra input fields: " + names.joined(separator: ", "),
            code: "AccessDenied",
            kind: .forbidden
        )
    }

    // MARK: - The file

    /// A file longer than the policy's content-length-range allows.
    ///
    /// - Parameters:
    ///   - proposed: the file's length (or the bytes received so far, once they pass the maximum).
    ///   - maximum: the range's upper bound.
    /// - Returns: the refusal (400 `EntityTooLarge`).
    public static func entityTooLarge(proposed: Int64, maximum: Int64) -> PostPolicyRefusal {
        PostPolicyRefusal(
            "Your proposed upload exceeds the maximum allowed size",
            code: "EntityTooLarge",
            details: [.init("ProposedSize", String(proposed)), .init("MaxSizeAllowed", String(maximum))],
            kind: .tooLarge
        )
    }

    /// A file shorter than the policy's content-length-range allows.
    ///
    /// - Parameters:
    ///   - proposed: the file's length.
    ///   - minimum: the range's lower bound.
    /// - Returns: the refusal (400 `EntityTooSmall`).
    public static func entityTooSmall(proposed: Int64, minimum: Int64) -> PostPolicyRefusal {
        PostPolicyRefusal(
            "Your proposed upload is smaller than the minimum allowed size",
            code: "EntityTooSmall",
            details: [.init("ProposedSize", String(proposed)), .init("MinSizeAllowed", String(minimum))],
            kind: .malformed
        )
    }

    // MARK: - The credential

    /// An access key id that is not the app's, with S3's code and text for every signature version.
    public static let invalidAccessKeyID = PostPolicyRefusal(
        AccessDenied.invalidAccessKeyID.message,
        code: AccessDenied.invalidAccessKeyID.code,
        kind: .forbidden
    )

    /// S3's text for a signature that does not match. `StringToSign` is the policy as sent (what SigV4 and SigV2
    /// POST signatures cover); the signature sent is never repeated.
    static func signatureMismatch(accessKeyID: String, policy: String) -> PostPolicyRefusal {
        PostPolicyRefusal(
            "The request signature we calculated does not match the signature you provided. "
                + "Check your key and signing method.",
            code: "SignatureDoesNotMatch",
            details: [.init("AWSAccessKeyId", accessKeyID), .init("StringToSign", Self.printable(policy))],
            kind: .forbidden
        )
    }

    /// A credential field S3 cannot use: 400 `InvalidArgument` naming the field and its value as sent.
    static func invalidArgument(
        _ message: String,
        field: String,
        value: String,
        more details: [AccessDenied.Detail] = []
    ) -> PostPolicyRefusal {
        PostPolicyRefusal(
            message,
            code: "InvalidArgument",
            details: [.init("ArgumentName", field), .init("ArgumentValue", Self.printable(value, limit: 128))]
                + details,
            kind: .malformed
        )
    }

    /// Client text fit to appear in an answer: printable ASCII only, at most `limit` characters.
    static func printable(_ text: some StringProtocol, limit: Int = PostPolicy.maximumFormLength) -> String {
        String(text.unicodeScalars.lazy.filter { (0x20..<0x7f).contains($0.value) }.prefix(limit).map(Character.init))
    }
}
