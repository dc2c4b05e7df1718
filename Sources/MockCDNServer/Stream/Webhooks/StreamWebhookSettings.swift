import Foundation
import MockCDNCore

/// An app's Stream webhook settings, as stream-chat's `update_app_settings` sends them in `PATCH /app` and
/// `GET /app` answers them: the legacy single `webhook_url` (with `webhook_events`), the `event_hooks` list,
/// and the payload compression switch.
struct StreamWebhookSettings: Codable, Sendable, Equatable {
    /// The legacy webhook; empty or nil when none.
    var webhookURL: String?
    /// The events the legacy webhook hears; empty for all.
    var webhookEvents: [String]?
    /// The hooks of the current API (`hook_type` `webhook` ones are delivered; SQS and SNS ones are kept and
    /// answered back, never reached).
    var eventHooks: [StreamEventHook]?
    /// Gzip the bodies (`enable_hook_payload_compression` in Stream's OpenAPI).
    var compression: Bool?

    enum CodingKeys: String, CodingKey {
        case webhookURL = "webhook_url"
        case webhookEvents = "webhook_events"
        case eventHooks = "event_hooks"
        case compression = "enable_hook_payload_compression"
    }

    /// The URLs that hear `event`, each with the name the delivery log gives it (`webhook_url`, or the hook's
    /// id).
    ///
    /// - Parameter event: the event type (`message.new`).
    /// - Returns: the targets, legacy first.
    func targets(for event: String) -> [(name: String, url: URL)] {
        var targets: [(name: String, url: URL)] = []
        if let text = self.webhookURL, !text.isEmpty, let url = URL(string: text),
            (self.webhookEvents ?? []).isEmpty || self.webhookEvents?.contains(event) == true
        {
            targets.append(("webhook_url", url))
        }
        for hook in self.eventHooks ?? []
        where (hook.hookType ?? "webhook") == "webhook" && hook.enabled != false
            && ((hook.eventTypes ?? []).isEmpty || hook.eventTypes?.contains(event) == true)
        {
            guard let text = hook.webhookURL, let url = URL(string: text) else { continue }
            targets.append((hook.id ?? "event_hooks", url))
        }
        return targets
    }

    /// Applies a `PATCH /app` body: each member it has replaces the kept one (`event_hooks: []` removes every
    /// hook, as Stream's does); an `event_hooks` entry without an id gets one.
    ///
    /// - Parameters:
    ///   - update: the members sent.
    ///   - now: the time stamped on new hooks, ISO 8601.
    /// - Throws: `StreamWebhookSettings.Invalid` for a URL that is not `http://` or `https://` with a host, or more
    ///   than `maximumHooks` hooks or 1000 events.
    mutating func apply(_ update: StreamWebhookSettings, now: String) throws(Invalid) {
        if let url = update.webhookURL, !url.isEmpty { try Self.validate(url, member: "webhook_url") }
        guard (update.eventHooks?.count ?? 0) <= Self.maximumHooks, (update.webhookEvents?.count ?? 0) <= 1000
        else {
            throw Invalid(message: "at most \(Self.maximumHooks) event_hooks and 1000 webhook_events")
        }
        for hook in update.eventHooks ?? [] where (hook.hookType ?? "webhook") == "webhook" {
            try Self.validate(hook.webhookURL ?? "", member: "event_hooks[].webhook_url")
        }
        if let url = update.webhookURL { self.webhookURL = url }
        if let events = update.webhookEvents { self.webhookEvents = events }
        if let compression = update.compression { self.compression = compression }
        if let hooks = update.eventHooks {
            let kept = self.eventHooks ?? []
            self.eventHooks = hooks.filter { $0.delete != true }.map { hook in
                var hook = hook
                let earlier = kept.first { $0.id != nil && $0.id == hook.id }
                hook.id = hook.id ?? UUID().uuidString.lowercased()
                hook.hookType = hook.hookType ?? "webhook"
                hook.enabled = hook.enabled ?? true
                hook.eventTypes = hook.eventTypes ?? []
                hook.createdAt = earlier?.createdAt ?? now
                hook.updatedAt = now
                hook.delete = nil
                return hook
            }
        }
    }

    /// The config file's settings (`apps[].webhooks.stream`), checked as `PATCH /app` checks them, each hook
    /// given an id.
    ///
    /// - Parameter file: the settings as the file gives them.
    /// - Returns: the settings kept.
    /// - Throws: `Invalid`, naming the member.
    static func configured(_ file: StreamWebhookSettings) throws(Invalid) -> StreamWebhookSettings {
        var settings = StreamWebhookSettings()
        try settings.apply(file, now: "1970-01-01T00:00:00.000Z")
        return settings
    }

    /// Why a URL of these settings may not be delivered to: it is MockCDN's own control route.
    ///
    /// - Parameter listener: MockCDN's own listener.
    /// - Returns: the refusal naming the first such URL (`webhook_url`, then each `event_hooks` webhook's);
    ///   nil when there is none.
    func ownListenerRefusal(_ listener: OwnListener) -> String? {
        if let url = self.webhookURL, !url.isEmpty, let refusal = listener.refusal(of: url, member: "webhook_url") {
            return refusal
        }
        return (self.eventHooks ?? []).lazy.filter { ($0.hookType ?? "webhook") == "webhook" }
            .compactMap { listener.refusal(of: $0.webhookURL ?? "", member: "event_hooks[].webhook_url") }.first
    }

    /// The most `event_hooks` an app keeps, as CometChat's webhooks and the notification targets are bounded.
    static let maximumHooks = 100

    /// A webhook URL `PATCH /app` refused (400 in Stream's envelope).
    struct Invalid: CategorizedError, Equatable {
        let message: String

        var category: ErrorCategory { .invalidInput }
        var publicMessage: String { self.message }
    }

    private static func validate(_ text: String, member: String) throws(Invalid) {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased()),
            let host = url.host, !host.isEmpty, text.utf8.count <= NotificationTarget.maximumTextLength
        else { throw Invalid(message: "\(member) must be an http:// or https:// URL with a host") }
    }
}

/// One entry of Stream's `event_hooks` (stream-chat-js `EventHook`); the SQS and SNS members are kept as sent.
struct StreamEventHook: Codable, Sendable, Equatable {
    var id: String?
    var hookType: String?
    var enabled: Bool?
    var eventTypes: [String]?
    var webhookURL: String?
    var product: String?
    var shouldSendCustomEvents: Bool?
    var sqsQueueURL: String?
    var sqsRegion: String?
    var snsTopicARN: String?
    var snsRegion: String?
    var createdAt: String?
    var updatedAt: String?
    /// Set by a client to remove the hook; never kept.
    var delete: Bool?

    enum CodingKeys: String, CodingKey {
        case id, enabled, product, delete
        case hookType = "hook_type"
        case eventTypes = "event_types"
        case webhookURL = "webhook_url"
        case shouldSendCustomEvents = "should_send_custom_events"
        case sqsQueueURL = "sqs_queue_url"
        case sqsRegion = "sqs_region"
        case snsTopicARN = "sns_topic_arn"
        case snsRegion = "sns_region"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
