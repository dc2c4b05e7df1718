/// One webhook delivery attempt as `GET /_mockcdn/deliveries` lists it: the delivery journal.
struct DeliveryAttempt: Codable, Sendable, Equatable {
    /// The delivery (`d1`, ...), the same for each of its attempts, sent as `X-MockCDN-Delivery`.
    var delivery: String
    var app: String
    /// The target's id.
    var target: String
    var url: String
    /// The queued event's id; nil for a vendor-shaped webhook.
    var eventID: Int?
    var eventName: String
    /// The key, as stored.
    var key: String
    /// From 1, sent as `X-MockCDN-Attempt`.
    var attempt: Int
    /// The virtual clock's time when it was made, ISO 8601 with milliseconds.
    var at: String
    /// The target's answer (or the fault's status); nil when none came.
    var status: Int?
    /// `delivered` (2xx), `failed` (another status), `timeout`, `unreachable` or `dropped` (a fault).
    var outcome: String
    /// Why it failed, when no status says it.
    var error: String?
    /// The fault rule that fired on it.
    var fault: String?
    /// Real milliseconds the attempt took.
    var durationMilliseconds: Int
    /// The virtual clock's time of the next attempt; nil when delivered or when this was the last.
    var nextAttemptAt: String?

    enum CodingKeys: String, CodingKey {
        case delivery, app, target, url, key, attempt, at, status, outcome, error, fault
        case eventID = "event_id"
        case eventName = "event_name"
        case durationMilliseconds = "duration_ms"
        case nextAttemptAt = "next_attempt_at"
    }

    // Members without a value are written as null, so every attempt has the same members.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.delivery, forKey: .delivery)
        try container.encode(self.app, forKey: .app)
        try container.encode(self.target, forKey: .target)
        try container.encode(self.url, forKey: .url)
        try container.encode(self.eventID, forKey: .eventID)
        try container.encode(self.eventName, forKey: .eventName)
        try container.encode(self.key, forKey: .key)
        try container.encode(self.attempt, forKey: .attempt)
        try container.encode(self.at, forKey: .at)
        try container.encode(self.status, forKey: .status)
        try container.encode(self.outcome, forKey: .outcome)
        try container.encode(self.error, forKey: .error)
        try container.encode(self.fault, forKey: .fault)
        try container.encode(self.durationMilliseconds, forKey: .durationMilliseconds)
        try container.encode(self.nextAttemptAt, forKey: .nextAttemptAt)
    }
}
