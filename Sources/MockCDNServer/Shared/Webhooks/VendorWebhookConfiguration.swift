import MockCDNCore

/// An app's vendor webhooks in the config file (`apps[].webhooks`), beside its upload events' targets
/// (`apps[].notifications`): Stream's settings as `PATCH /app` takes them, and CometChat's webhooks as its
/// management API creates them, triggers included.
struct VendorWebhookConfiguration: Codable, Sendable, Equatable {
    var stream: StreamWebhookSettings?
    var cometchat: [CometChatWebhook]?

    /// The members the file may have.
    static let shape: MemberShape = {
        let values = { (names: [String]) in
            MemberShape.object(Dictionary(uniqueKeysWithValues: names.map { ($0, MemberShape.value) }))
        }
        let hook = values([
            "id", "hook_type", "enabled", "event_types", "webhook_url", "product", "should_send_custom_events",
        ])
        return .object([
            "stream": .object([
                "webhook_url": .value, "webhook_events": .value, "enable_hook_payload_compression": .value,
                "event_hooks": .list(hook),
            ]),
            "cometchat": .list(
                values([
                    "id", "name", "webhookURL", "useBasicAuth", "username", "password", "enabled", "retryOnFailure",
                    "triggers",
                ])
            ),
        ])
    }()

    /// The configuration checked, with Stream's hooks given ids and CometChat's `name` defaulting to the id.
    ///
    /// - Throws: the first refusal, naming the member.
    func validated() throws -> VendorWebhookConfiguration {
        var checked = VendorWebhookConfiguration()
        if let stream = self.stream {
            var settings = StreamWebhookSettings()
            try settings.apply(stream, now: "1970-01-01T00:00:00.000Z")
            checked.stream = settings
        }
        if let hooks = self.cometchat {
            checked.cometchat = try hooks.map { hook in
                var hook = hook
                if hook.name.isEmpty { hook.name = hook.id }
                try hook.validate()
                return hook
            }
            let ids = hooks.map(\.id)
            guard Set(ids).count == ids.count else {
                throw CometChatWebhook.Invalid(message: "cometchat: webhook ids must differ")
            }
        }
        return checked
    }
}

extension VendorWebhookConfiguration {
    /// Why a URL of this configuration may not be delivered to: it is MockCDN's own control route.
    ///
    /// - Parameter listener: MockCDN's own listener.
    /// - Returns: the refusal naming the first such URL (Stream's, then CometChat's); nil when there is none.
    func ownListenerRefusal(_ listener: OwnListener) -> String? {
        if let refusal = self.stream?.ownListenerRefusal(listener) { return "stream: " + refusal }
        return (self.cometchat ?? []).lazy.compactMap { hook in
            listener.refusal(of: hook.webhookURL, member: "webhookURL").map { "cometchat: " + $0 }
        }.first
    }
}
