/// Why a credential on a media read was refused; the message goes into the S3/CloudFront-style XML error
/// body, so it names the rule that failed and never echoes a token or signature.
public struct AccessDenied: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
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
