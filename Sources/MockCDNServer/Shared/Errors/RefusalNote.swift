/// Why an error answer refused its request (`ExplainedRefusal.explanation`) and, for a credential refused only
/// because its time had passed, the expiry it named (`ExplainedRefusal.expiredAt`), as the request's notes
/// carry them to the journal (`RequestNotes.refusal`).
struct RefusalNote: Equatable, Sendable {
    /// The refusal's code and message.
    let reason: String
    /// When the refused credential expired, Unix seconds by the MockCDN clock; nil for any other refusal.
    let expiredAt: Int64?

    /// The note of an error answer's envelope.
    init(_ refusal: any ExplainedRefusal) {
        self.reason = refusal.explanation
        self.expiredAt = refusal.expiredAt
    }
}
