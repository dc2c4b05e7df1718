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

    /// S3's error code: `AccessDenied`, `SignatureDoesNotMatch` or `InvalidAccessKeyId`.
    public let code: String
    public let message: String
    public let details: [Detail]

    public init(_ message: String, code: String = "AccessDenied", details: [Detail] = []) {
        self.code = code
        self.message = message
        self.details = details
    }

    public var description: String { self.message }

    public static let expired = AccessDenied("Request has expired")
    public static let signatureMismatch = AccessDenied("Signature does not match")
    public static let unknownKeyPair = AccessDenied("Unknown Key-Pair-Id for this app")
    public static let retiredKeyPair = AccessDenied("Key-Pair-Id is retired")
    public static let malformedPolicy = AccessDenied("Malformed CloudFront policy")
    public static let resourceMismatch = AccessDenied("Resource is not covered by the policy")
    public static let notYetValid = AccessDenied("Request is not yet valid (DateGreaterThan)")
    public static let sourceIPMismatch = AccessDenied("Source IP is not allowed by the policy")
}
