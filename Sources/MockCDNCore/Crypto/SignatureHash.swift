/// The hash under a CloudFront signature, RSA or ECDSA: what `Hash-Algorithm` names.
public enum SignatureHash: Sendable, CaseIterable {
    /// SHA-1: CloudFront's default, and what a link without `Hash-Algorithm` was signed with.
    case sha1
    /// SHA-256: `Hash-Algorithm=SHA256` (or the `CloudFront-Hash-Algorithm` cookie).
    case sha256
}
