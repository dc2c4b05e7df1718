import Foundation
import MockCDNCore

/// One notification configuration of an app: where its events go and which of them.
///
/// A webhook (`url`) hears each matching event as a signed HTTP POST (`WebhookDeliveries`). A queue, topic or
/// Lambda function (`arn`, as S3's `QueueConfiguration`, `TopicConfiguration` and
/// `CloudFunctionConfiguration` name them) cannot be reached from MockCDN: its events are tagged with the
/// target's id and ARN in the built-in queue, read with `GET /_mockcdn/events?target=`.
struct NotificationTarget: Codable, Sendable, Equatable {
    /// The configuration's `Id`; made up (`notification-1`, ...) when none is given, as S3 makes one up.
    var id: String?
    /// A webhook's `http://` or `https://` URL.
    var url: String?
    /// A queue's, topic's or function's ARN.
    var arn: String?
    /// `s3:` event names or patterns; at least one.
    var events: [String]
    /// The key prefix filter rule.
    var prefix: String?
    /// The key suffix filter rule.
    var suffix: String?

    /// Why a target was refused (400 on the control routes, `InvalidArgument` on S3's).
    struct Invalid: CategorizedError, Equatable {
        let message: String

        var category: ErrorCategory { .invalidInput }
        var publicMessage: String { self.message }
    }

    /// The longest `id`, as S3 allows.
    static let maximumIDLength = 255
    /// The longest URL or ARN, prefix and suffix.
    static let maximumTextLength = 1024

    /// The filter the target applies.
    var filter: EventFilter {
        EventFilter(events: self.events, prefix: self.prefix ?? "", suffix: self.suffix ?? "")
    }

    /// The webhook's URL, when it is one.
    var webhook: URL? { self.url.flatMap(URL.init(string:)) }

    /// Checks the target; `role` names what kind it is in a refusal.
    ///
    /// - Parameter role: `webhooks`, `queues`, `topics` or `lambdas`.
    /// - Throws: `Invalid` naming the member.
    func validate(as role: String) throws(Invalid) {
        if let id, id.isEmpty || id.utf8.count > Self.maximumIDLength {
            throw Invalid(message: "\(role): id must be 1...\(Self.maximumIDLength) bytes")
        }
        if role == "webhooks" {
            guard let url, let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased()),
                let host = parsed.host, !host.isEmpty, url.utf8.count <= Self.maximumTextLength
            else {
                throw Invalid(message: "webhooks: url must be an http:// or https:// URL with a host")
            }
            guard self.arn == nil else { throw Invalid(message: "webhooks: a webhook has a url, not an arn") }
        } else {
            guard let arn, arn.hasPrefix("arn:"), arn.utf8.count <= Self.maximumTextLength else {
                throw Invalid(message: "\(role): arn must be an ARN (arn:aws:...)")
            }
            guard self.url == nil else { throw Invalid(message: "\(role): a \(role.dropLast()) has an arn, not a url") }
        }
        guard !self.events.isEmpty else { throw Invalid(message: "\(role): events must name at least one event") }
        for event in self.events where !EventFilter.acceptedEvents.contains(event) {
            throw Invalid(message: "\(role): \(event.prefix(64)) is not an S3 event name (such as s3:ObjectCreated:*)")
        }
        for (name, value) in [("prefix", self.prefix), ("suffix", self.suffix)]
        where (value?.utf8.count ?? 0) > Self.maximumTextLength {
            throw Invalid(message: "\(role): \(name) must be at most \(Self.maximumTextLength) bytes")
        }
    }
}
