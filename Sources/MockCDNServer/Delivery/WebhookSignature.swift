import MockCDNCore

/// The signature a delivery carries in `X-Signature` (upload events and Stream's webhooks alike).
enum WebhookSignature {
    /// The lowercase hex HMAC-SHA256 of `body` keyed with `secret`: the `X-Signature` of a delivery.
    ///
    /// - Parameters:
    ///   - body: the raw body.
    ///   - secret: the app's `api_secret`.
    /// - Returns: 64 hex digits.
    static func hex(of body: [UInt8], secret: String) -> String {
        HMAC.sha256(body, key: Array(secret.utf8)).hexString
    }
}
