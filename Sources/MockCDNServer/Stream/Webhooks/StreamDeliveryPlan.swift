import Foundation
import MockCDNCore

/// How Stream sends a webhook, as a `DeliveryPlan` for the delivery service: its headers and signature, its
/// time limit and its retries.
enum StreamDeliveryPlan {
    /// Stream's answer time limit: "The timeout of one request is 6 seconds".
    static let timeout = Duration.seconds(6)
    /// Seconds from Stream's failed attempt to the next (not documented; chosen so that every attempt falls
    /// within the documented 15 seconds for a request and its retries).
    static let delays = [2, 5]
    /// Stream's bound on a request and its retries: "cannot exceed the duration of 15 seconds".
    static let deadline = 15

    /// Stream's delivery: `X-Webhook-Id` (the same on every attempt), `X-Webhook-Attempt` from 1, `X-Api-Key`,
    /// and `X-Signature`, the lowercase hex HMAC-SHA256 of the uncompressed body keyed with the API secret;
    /// with compression on, the body gzipped and `Content-Encoding: gzip`.
    ///
    /// - Parameters:
    ///   - body: the JSON, as signed.
    ///   - webhookID: the delivery's `X-Webhook-Id`.
    ///   - apiKey: the app's API key.
    ///   - secret: the app's API secret.
    ///   - gzip: whether the app compresses hook payloads.
    /// - Returns: the plan.
    static func plan(body: [UInt8], webhookID: String, apiKey: String, secret: String, gzip: Bool) -> DeliveryPlan {
        let signature = WebhookSignature.hex(of: body, secret: secret)
        return DeliveryPlan(
            headers: { _, attempt in
                var headers: [(name: String, value: String)] = [
                    ("Content-Type", "application/json"),
                    ("X-Webhook-Id", webhookID),
                    ("X-Webhook-Attempt", String(attempt)),
                    ("X-Api-Key", apiKey),
                    ("X-Signature", signature),
                ]
                if gzip { headers.append(("Content-Encoding", "gzip")) }
                return headers
            },
            body: gzip ? Gzip.wrap(body) : body,
            timeout: Self.timeout,
            retry: Self.retry,
            deadline: Self.deadline
        )
    }

    /// Stream's retry rule: 408, 429 and 5xx answers and timeouts get 3 attempts, network errors 2, any other
    /// answer none.
    ///
    /// - Parameters:
    ///   - attempt: the failed attempt, from 1.
    ///   - outcome: `failed`, `timeout`, `unreachable` or `dropped`.
    ///   - status: the answer's status, when one came.
    /// - Returns: seconds to the next attempt, or nil.
    static func retry(attempt: Int, outcome: String, status: Int?) -> Int? {
        let attempts: Int
        switch outcome {
        case "timeout": attempts = 3
        case "unreachable", "dropped": attempts = 2
        case "failed":
            let code = status ?? 0
            attempts = code == 408 || code == 429 || code >= 500 ? 3 : 1
        default: attempts = 1
        }
        guard attempt < attempts, attempt <= Self.delays.count else { return nil }
        return Self.delays[attempt - 1]
    }
}
