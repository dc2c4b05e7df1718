import Foundation
import MockCDNCore
import Synchronization

/// Stream's webhooks for each app: the settings `PATCH /app` sets (and `apps[].webhooks.stream` in the config
/// file), and `message.new` as Stream delivers it to them.
final class StreamWebhooks: VendorHook {
    let clock: MockClock
    let store: any ObjectStore
    let links: LinkSigner
    /// MockCDN's own listener, which no webhook may name with a control route.
    let listener: OwnListener
    /// The config file's settings, by app id.
    let configured: [String: StreamWebhookSettings]
    let event = "message.new"
    private let stored = Mutex<[String: StreamWebhookSettings]>([:])

    /// - Parameters:
    ///   - clock: the virtual clock (timestamps, link expiry).
    ///   - store: where a video's poster is looked up.
    ///   - links: the signer of the attachments' links.
    ///   - listener: MockCDN's own listener.
    ///   - configured: the config file's settings by app id, validated.
    init(
        clock: MockClock,
        store: any ObjectStore,
        links: LinkSigner,
        listener: OwnListener,
        configured: [String: StreamWebhookSettings] = [:]
    ) {
        self.clock = clock
        self.store = store
        self.links = links
        self.listener = listener
        self.configured = configured
    }

    /// The app's settings (`GET /app`).
    func settings(of app: String) -> StreamWebhookSettings {
        self.stored.withLock { $0[app] } ?? self.configured[app] ?? StreamWebhookSettings()
    }

    /// Applies the webhook members of a `PATCH /app` body.
    ///
    /// - Parameters:
    ///   - update: the members sent.
    ///   - app: the app id.
    /// - Throws: `StreamWebhookSettings.Invalid` for a bad URL, or one on MockCDN's own control routes; nothing
    ///   changes then.
    func update(_ update: StreamWebhookSettings, of app: String) throws(StreamWebhookSettings.Invalid) {
        let now = Timestamp.text(self.clock.now)
        let configured = self.configured[app] ?? StreamWebhookSettings()
        // Read, changed and kept under one lock: two PATCHes at once never lose one's change.
        try self.stored.withLock { (stored) throws(StreamWebhookSettings.Invalid) in
            var settings = stored[app] ?? configured
            try settings.apply(update, now: now)
            if let refusal = settings.ownListenerRefusal(self.listener) {
                throw StreamWebhookSettings.Invalid(message: refusal)
            }
            stored[app] = settings
        }
    }

    func clear() {
        self.stored.withLock { $0 = [:] }
    }

    /// `message.new` to `webhook_url` and each `event_hooks` webhook that hears it, signed with the app's
    /// secret; the attachments carry CDN signed links (and an image's resize or a video's poster as
    /// `thumb_url`).
    func deliveries(
        of request: VendorWebhooks.Request,
        app: MediaApp,
        attachments: VendorAttachments,
        base: String
    ) async throws -> [VendorDelivery] {
        guard Self.isChannelID(request.message.channel ?? "") else {
            throw VendorWebhookRefusal(
                .invalidInput,
                "message.channel is required for stream: a cid, type:id, each part 1 to 64 characters"
            )
        }
        let settings = self.settings(of: app.id)
        let targets = settings.targets(for: request.event)
        guard !targets.isEmpty else {
            throw VendorWebhookRefusal(
                .unprocessable,
                "app \(app.id) has no Stream webhook for message.new: set webhook_url or event_hooks with PATCH /app"
            )
        }
        let now = self.clock.unixSeconds
        var objects: [LinkedObject] = []
        for (_, object, var linked) in try await attachments.objects() {
            linked.url = try self.links.signedURL(app: app, object: object, now: now, base: base)
            if let poster = object.extras["poster"], let posterKey = try? ObjectKey(poster),
                let posterObject = try await self.store.metadata(for: posterKey)
            {
                linked.thumbURL = try self.links.signedURL(app: app, object: posterObject, now: now, base: base)
            } else if linked.kind == "image" {
                linked.thumbURL = linked.url + "&" + ImageTransform.thumbnail.normalized
            }
            objects.append(linked)
        }
        let body = StreamMessageNew.body(
            request.message,
            id: request.message.id ?? UUID().uuidString.lowercased(),
            attachments: objects,
            time: Timestamp.text(self.clock.now),
            userAgent: "MockCDN/\(mockCDNVersion)"
        )
        let payload = try VendorWebhooks.document(body)
        return targets.map { target in
            let webhookID = UUID().uuidString.lowercased()
            return VendorDelivery(
                plan: StreamDeliveryPlan.plan(
                    body: payload,
                    webhookID: webhookID,
                    apiKey: app.configuration.apiKey,
                    secret: app.configuration.apiSecret,
                    gzip: settings.compression == true
                ),
                url: target.url,
                target: target.name,
                webhookID: webhookID,
                payload: payload
            )
        }
    }

    /// Whether `cid` is a Stream channel id, `type:id`, each part 1 to 64 characters without `:`.
    static func isChannelID(_ cid: String) -> Bool {
        let parts = cid.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { (1...64).contains($0.count) }
    }
}
