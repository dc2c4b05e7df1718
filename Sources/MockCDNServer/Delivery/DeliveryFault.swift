/// What a fault rule with `match.scope: deliveries` does to one webhook delivery attempt.
struct DeliveryFault: Sendable, Equatable {
    /// The rule's id, noted on the attempt.
    var rule: String
    /// Sent, and the target's answer taken as this status: a 5xx is retried, so the target sees the same
    /// delivery again (idempotency).
    var status: Int?
    /// Held this long before it is sent: a slow delivery.
    var delayMilliseconds: Int?
    /// Not sent at all: the attempt fails as if the target could not be reached, and is retried.
    var drop = false
}
