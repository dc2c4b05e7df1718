import Hummingbird

/// An error answer that says in one line what was refused and why, for the journal's `reason` (and so the
/// console's requests view): its code and message. The messages name the rule that failed (an expired link,
/// a signature that does not match, a missing credential), never a credential's value.
protocol ExplainedRefusal: HTTPResponseError {
    var explanation: String { get }
}

extension S3Error: ExplainedRefusal {
    var explanation: String { self.code + ": " + self.message }
}

extension StreamAPIError: ExplainedRefusal {
    var explanation: String { "Stream error \(self.code): " + self.message }
}

extension CometChatError: ExplainedRefusal {
    var explanation: String { self.code + ": " + self.message }
}
