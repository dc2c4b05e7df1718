import Foundation

/// How one delivery is sent and tried again: the headers it carries, how long an answer may take, and which
/// failures get another attempt when. Upload events use `s3Events` (in `Events/`); the vendor-shaped webhooks
/// (`VendorWebhooks`) use their vendor's rules, so one delivery service sends both.
struct DeliveryPlan: Sendable {
    /// What a delivery's requests say about it, by attempt: its headers (signature, auth, ids).
    let headers: @Sendable (_ delivery: String, _ attempt: Int) -> [(name: String, value: String)]
    /// The bytes sent: the body as signed, or its gzip when the vendor compresses.
    let body: [UInt8]
    /// The longest an answer may take, in real time, before the attempt counts as a `timeout`.
    let timeout: Duration
    /// Seconds from a failed attempt to the next, by the attempt's number, outcome and status; nil for none.
    let retry: @Sendable (_ attempt: Int, _ outcome: String, _ status: Int?) -> Int?
    /// Seconds from the delivery's queueing past which no attempt is scheduled, by MockCDN's clock; nil for no
    /// bound (Stream: "the request with all retries cannot exceed the duration of 15 seconds").
    var deadline: Int? = nil
}
