import Foundation
import MockCDNCore
import Synchronization

/// CometChat's webhooks for each app: those its management routes (`/apps/{app}/webhooks`) create and change
/// (and `apps[].webhooks.cometchat` in the config file), and `message_sent` as CometChat delivers it to them.
final class CometChatWebhooks: VendorHook {
    let clock: MockClock
    let links: LinkSigner
    /// MockCDN's own listener, which no webhook may name with a control route.
    let listener: OwnListener
    /// The config file's webhooks, by app id.
    let configured: [String: [CometChatWebhook]]
    /// Webhooks set at run time, by app id; they replace the file's for that app.
    let event = "message_sent"
    private let stored = Mutex<[String: [CometChatWebhook]]>([:])
    /// The last message id given.
    private let messageIDs = Atomic<Int>(0)

    /// The most webhooks an app keeps.
    static let maximumWebhooks = 100

    /// - Parameters:
    ///   - clock: the virtual clock (timestamps, link expiry).
    ///   - links: the signer of the attachments' media URLs.
    ///   - listener: MockCDN's own listener.
    ///   - configured: the config file's webhooks by app id, validated.
    init(
        clock: MockClock,
        links: LinkSigner,
        listener: OwnListener,
        configured: [String: [CometChatWebhook]] = [:]
    ) {
        self.clock = clock
        self.links = links
        self.listener = listener
        self.configured = configured
    }

    /// The app's webhooks, in the order they were created.
    func webhooks(of app: String) -> [CometChatWebhook] {
        self.stored.withLock { $0[app] } ?? self.configured[app] ?? []
    }

    /// Changes the app's webhooks with `change`, which may throw to leave them as they were.
    ///
    /// - Parameters:
    ///   - app: the app id.
    ///   - change: the change.
    /// - Returns: what `change` returns.
    func change<Result>(of app: String, _ change: (inout [CometChatWebhook]) throws -> Result) throws -> Result {
        try self.stored.withLock { all in
            var hooks = all[app] ?? self.configured[app] ?? []
            let result = try change(&hooks)
            all[app] = hooks
            return result
        }
    }

    func clear() {
        self.stored.withLock { $0 = [:] }
    }

    /// `message_sent` to each enabled webhook with that trigger, the attachments carrying media URLs.
    func deliveries(
        of request: VendorWebhooks.Request,
        app: MediaApp,
        attachments: VendorAttachments,
        base: String
    ) async throws -> [VendorDelivery] {
        guard (1...255).contains(request.message.receiver?.count ?? 0) else {
            throw VendorWebhookRefusal(.invalidInput, "message.receiver is required for cometchat: 1 to 255 characters")
        }
        guard ["user", "group"].contains(request.message.receiverType ?? "user") else {
            throw VendorWebhookRefusal(.invalidInput, "message.receiver_type must be user or group")
        }
        let hooks = self.webhooks(of: app.id).filter { $0.hears(request.event) }
        guard !hooks.isEmpty else {
            throw VendorWebhookRefusal(
                .unprocessable,
                "app \(app.id) has no enabled CometChat webhook with the message_sent trigger: create one with "
                    + "POST /apps/\(app.id)/webhooks and add the trigger, or list it under apps[].webhooks"
            )
        }
        let now = self.clock.unixSeconds
        var objects: [LinkedObject] = []
        for (key, _, var linked) in try await attachments.objects() {
            linked.url = try self.links.mediaURL(app: app, key: key, now: now, base: base)
            objects.append(linked)
        }
        let id = request.message.id ?? String(self.messageIDs.wrappingAdd(1, ordering: .relaxed).newValue)
        var deliveries: [VendorDelivery] = []
        for hook in hooks {
            guard let url = URL(string: hook.webhookURL) else { continue }
            let body = CometChatMessageSent.body(
                request.message,
                id: id,
                attachments: objects,
                sentAt: self.clock.unixSeconds,
                appID: app.id,
                region: app.configuration.region,
                webhook: hook.id
            )
            let payload = try VendorWebhooks.document(body)
            deliveries.append(
                VendorDelivery(
                    plan: CometChatDeliveryPlan.plan(body: payload, webhook: hook),
                    url: url,
                    target: hook.id,
                    payload: payload
                )
            )
        }
        return deliveries
    }
}
