import Foundation

/// How CometChat sends a webhook, as a `DeliveryPlan` for the delivery service: its headers, its time limit
/// and its retries.
enum CometChatDeliveryPlan {
    /// CometChat's answer time limit: "Respond within 2 seconds to prevent timeouts".
    static let timeout = Duration.seconds(2)
    /// CometChat's retries, with `retryOnFailure`: "First retry: after 10 seconds. Second retry: after 30
    /// seconds."
    static let delays = [10, 30]

    /// CometChat's delivery: JSON, `Authorization: Basic` when the webhook uses it, 2 s to answer, and the
    /// retries at +10 s and +30 s only with `retryOnFailure`.
    ///
    /// - Parameters:
    ///   - body: the JSON.
    ///   - webhook: the webhook.
    /// - Returns: the plan.
    static func plan(body: [UInt8], webhook: CometChatWebhook) -> DeliveryPlan {
        let authorization = webhook.authorization
        let retries = webhook.retryOnFailure == true
        return DeliveryPlan(
            headers: { _, _ in
                var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
                if let authorization { headers.append(("Authorization", authorization)) }
                return headers
            },
            body: body,
            timeout: Self.timeout,
            retry: { attempt, _, _ in
                guard retries, attempt >= 1, attempt <= Self.delays.count else { return nil }
                return Self.delays[attempt - 1]
            }
        )
    }
}
