import Hummingbird

/// An error answer that says in one line what was refused and why, for the journal's `reason` (and so the
/// console's requests view): its code and message. The messages name the rule that failed (an expired link,
/// a signature that does not match, a missing credential), never a credential's value. Each surface's
/// envelope conforms in its own file.
protocol ExplainedRefusal: HTTPResponseError {
    var explanation: String { get }
    /// For a credential refused only because its time had passed: the expiry it named, Unix seconds by the
    /// MockCDN clock (never the credential), which the journal keeps as `expired_at`; nil otherwise.
    var expiredAt: Int64? { get }
}
