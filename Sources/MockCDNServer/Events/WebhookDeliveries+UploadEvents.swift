import Foundation

/// How an upload event travels: each notification target gets its own delivery of the event's document,
/// signed with the app's secret and tried again on `DeliveryBackoff`'s schedule.
extension WebhookDeliveries {
    /// Queues a delivery of an upload event's `body` to `url`, due now.
    ///
    /// - Parameters:
    ///   - body: the JSON document.
    ///   - url: the webhook.
    ///   - target: the target's id.
    ///   - app: the app whose secret signs it.
    ///   - secret: the app's `api_secret`.
    ///   - event: the queued event it carries.
    func enqueue(_ body: [UInt8], to url: URL, target: String, app: String, secret: String, event: QueuedEvent) {
        self.enqueue(
            DeliveryPlan.s3Events(body: body, secret: secret, eventID: event.id),
            to: url,
            target: target,
            app: app,
            eventID: event.id,
            eventName: event.record.eventName,
            key: Self.key(of: event)
        )
    }

    /// The event's key as stored (the record's, decoded).
    fileprivate static func key(of event: QueuedEvent) -> String {
        let encoded = event.record.s3.object.key.replacingOccurrences(of: "+", with: " ")
        return encoded.removingPercentEncoding ?? encoded
    }
}

extension DeliveryPlan {
    /// An upload event's delivery: `{"Records":[...]}` signed with the app's secret, MockCDN's own id headers,
    /// 5 s to answer, and `DeliveryBackoff` for any failure.
    ///
    /// - Parameters:
    ///   - body: the document.
    ///   - secret: the app's `api_secret`.
    ///   - eventID: the queued event's id.
    /// - Returns: the plan.
    static func s3Events(body: [UInt8], secret: String, eventID: Int) -> DeliveryPlan {
        let signature = WebhookSignature.hex(of: body, secret: secret)
        return DeliveryPlan(
            headers: { delivery, attempt in
                [
                    ("Content-Type", "application/json"),
                    ("X-Signature", signature),
                    ("X-MockCDN-Delivery", delivery),
                    ("X-MockCDN-Attempt", String(attempt)),
                    ("X-MockCDN-Event", String(eventID)),
                ]
            },
            body: body,
            timeout: WebhookDeliveries.attemptTimeout,
            retry: { attempt, _, _ in DeliveryBackoff.delay(after: attempt) }
        )
    }
}
