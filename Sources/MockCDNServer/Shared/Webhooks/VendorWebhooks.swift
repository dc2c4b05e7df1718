import Foundation
import MockCDNCore
import Synchronization

/// Vendor-shaped webhooks on demand: Stream's `message.new` and CometChat's `message_sent`, telling of a
/// message with the app's objects attached, sent to the URLs each vendor's own set-up calls configured
/// (Stream's `PATCH /app`, CometChat's webhook management routes or the config file) through the upload
/// events' delivery service, with each vendor's headers, time limit and retry rule.
///
/// Uploading alone sends no webhook in either product: a test asks for one (`POST /_mockcdn/webhooks`). The
/// settings live in the process, as the notification targets do; a reset forgets them.
final class VendorWebhooks: Sendable {
    let apps: AppRegistry
    let clock: MockClock
    let store: any ObjectStore
    let links: LinkSigner
    let deliveries: WebhookDeliveries
    /// MockCDN's own listener, which no webhook may name with a control route.
    let listener: OwnListener
    /// The config file's webhooks, by app id.
    let configured: [String: VendorWebhookConfiguration]
    private let stream = Mutex<[String: StreamWebhookSettings]>([:])
    /// CometChat webhooks set at run time, by app id; they replace the file's for that app.
    private let cometChat = Mutex<[String: [CometChatWebhook]]>([:])
    /// The last CometChat message id given.
    private let messageIDs = Atomic<Int>(0)

    /// The most objects one message attaches (CometChat's `FILE_COUNT_MAX` is 10; Stream's is 30).
    static let maximumAttachments = 30
    /// The most CometChat webhooks an app keeps.
    static let maximumCometChatWebhooks = 100

    /// A hub for `apps`.
    ///
    /// - Parameters:
    ///   - apps: the apps (keys, secrets, regions).
    ///   - clock: the virtual clock (timestamps, link expiry).
    ///   - store: where attached objects are looked up.
    ///   - links: the signer of the attachments' links.
    ///   - deliveries: the delivery service the upload events use.
    ///   - listener: MockCDN's own listener.
    ///   - configured: the config file's webhooks by app id, validated.
    init(
        apps: AppRegistry,
        clock: MockClock,
        store: any ObjectStore,
        links: LinkSigner,
        deliveries: WebhookDeliveries,
        listener: OwnListener,
        configured: [String: VendorWebhookConfiguration] = [:]
    ) {
        self.apps = apps
        self.clock = clock
        self.store = store
        self.links = links
        self.deliveries = deliveries
        self.listener = listener
        self.configured = configured
    }

    // MARK: - Settings

    /// The app's Stream webhook settings (`GET /app`).
    func streamSettings(of app: String) -> StreamWebhookSettings {
        self.stream.withLock { $0[app] } ?? self.configured[app]?.stream ?? StreamWebhookSettings()
    }

    /// Applies the webhook members of a `PATCH /app` body.
    ///
    /// - Parameters:
    ///   - update: the members sent.
    ///   - app: the app id.
    /// - Throws: `StreamWebhookSettings.Invalid` for a bad URL, or one on MockCDN's own control routes; nothing
    ///   changes then.
    func updateStreamSettings(_ update: StreamWebhookSettings, of app: String) throws(StreamWebhookSettings.Invalid) {
        let now = EventRecord.timestamp(self.clock.now)
        let configured = self.configured[app]?.stream ?? StreamWebhookSettings()
        // Read, changed and kept under one lock: two PATCHes at once never lose one's change.
        try self.stream.withLock { (stored) throws(StreamWebhookSettings.Invalid) in
            var settings = stored[app] ?? configured
            try settings.apply(update, now: now)
            if let refusal = settings.ownListenerRefusal(self.listener) {
                throw StreamWebhookSettings.Invalid(message: refusal)
            }
            stored[app] = settings
        }
    }

    /// The app's CometChat webhooks, in the order they were created.
    func cometChatWebhooks(of app: String) -> [CometChatWebhook] {
        self.cometChat.withLock { $0[app] } ?? self.configured[app]?.cometchat ?? []
    }

    /// Changes the app's CometChat webhooks with `change`, which may throw to leave them as they were.
    ///
    /// - Parameters:
    ///   - app: the app id.
    ///   - change: the change.
    /// - Returns: what `change` returns.
    func changeCometChatWebhooks<Result>(
        of app: String,
        _ change: (inout [CometChatWebhook]) throws -> Result
    ) throws -> Result {
        try self.cometChat.withLock { all in
            var hooks = all[app] ?? self.configured[app]?.cometchat ?? []
            let result = try change(&hooks)
            all[app] = hooks
            return result
        }
    }

    /// Forgets the run-time settings (`/_mockcdn/reset`): the config file's come back.
    func clear() {
        self.stream.withLock { $0 = [:] }
        self.cometChat.withLock { $0 = [:] }
    }

    // MARK: - Sending

    /// What `POST /_mockcdn/webhooks` asks for.
    struct Request: Codable, Sendable {
        /// The app id; the first app when left out.
        var app: String?
        /// `stream` or `cometchat`.
        var vendor: String
        /// `message.new` (Stream) or `message_sent` (CometChat).
        var event: String
        var message: VendorMessage
        /// The app's object keys to attach, as stored within the app (`images/cat.jpg`).
        var keys: [String]?
    }

    /// One delivery a request made.
    struct Sent: Codable, Sendable, Equatable {
        /// The delivery's id in `GET /_mockcdn/deliveries`.
        var delivery: String
        /// The target: `webhook_url`, an event hook's id, or a CometChat webhook's id.
        var target: String
        var url: String
        /// Stream's `X-Webhook-Id`, the same on every attempt.
        var webhookID: String?

        enum CodingKeys: String, CodingKey {
            case delivery, target, url
            case webhookID = "webhook_id"
        }
    }

    /// Builds the vendor's payload for the message and queues a delivery to each configured URL that hears
    /// the event.
    ///
    /// - Parameters:
    ///   - request: the vendor, event, message and keys.
    ///   - base: the base of the links the payload carries (the request's host, or the public URL).
    /// - Returns: the deliveries, and each payload as sent (uncompressed).
    /// - Throws: `VendorWebhookRefusal`.
    func send(_ request: Request, base: String) async throws -> [(sent: Sent, payload: [UInt8])] {
        guard let app = request.app.map({ self.apps.configuredApp(id: $0) }) ?? self.apps.apps.first else {
            throw VendorWebhookRefusal(.notFound, "no app \((request.app ?? "").prefix(64))")
        }
        guard request.message.user.count <= 255, !request.message.user.isEmpty else {
            throw VendorWebhookRefusal(.invalidInput, "message.user is required: 1 to 255 characters")
        }
        let keys = request.keys ?? []
        guard keys.count <= Self.maximumAttachments else {
            throw VendorWebhookRefusal(.invalidInput, "keys must name at most \(Self.maximumAttachments) objects")
        }
        switch request.vendor {
        case "stream":
            guard request.event == "message.new" else {
                throw VendorWebhookRefusal(.invalidInput, "event must be message.new for stream")
            }
            guard Self.isChannelID(request.message.channel ?? "") else {
                throw VendorWebhookRefusal(
                    .invalidInput,
                    "message.channel is required for stream: a cid, type:id, each part 1 to 64 characters"
                )
            }
            let settings = self.streamSettings(of: app.id)
            let targets = settings.targets(for: request.event)
            guard !targets.isEmpty else {
                throw VendorWebhookRefusal(
                    .unprocessable,
                    "app \(app.id) has no Stream webhook for message.new: set webhook_url or event_hooks with "
                        + "PATCH /app"
                )
            }
            let objects = try await self.objects(keys, app: app, base: base, stream: true)
            let id = request.message.id ?? UUID().uuidString.lowercased()
            let body = StreamMessageNew.body(
                request.message,
                id: id,
                attachments: objects,
                time: EventRecord.timestamp(self.clock.now),
                userAgent: "MockCDN/\(mockCDNVersion)"
            )
            let payload = try Self.document(body)
            return targets.map { target in
                let webhookID = UUID().uuidString.lowercased()
                let delivery = self.deliveries.enqueue(
                    VendorDeliveryPlans.stream(
                        body: payload,
                        webhookID: webhookID,
                        apiKey: app.configuration.apiKey,
                        secret: app.configuration.apiSecret,
                        gzip: settings.compression == true
                    ),
                    to: target.url,
                    target: target.name,
                    app: app.id,
                    eventID: nil,
                    eventName: request.event,
                    key: keys.first ?? ""
                )
                return (
                    Sent(delivery: delivery, target: target.name, url: target.url.absoluteString, webhookID: webhookID),
                    payload
                )
            }
        case "cometchat":
            guard request.event == "message_sent" else {
                throw VendorWebhookRefusal(.invalidInput, "event must be message_sent for cometchat")
            }
            guard (1...255).contains(request.message.receiver?.count ?? 0) else {
                throw VendorWebhookRefusal(
                    .invalidInput,
                    "message.receiver is required for cometchat: 1 to 255 characters"
                )
            }
            guard ["user", "group"].contains(request.message.receiverType ?? "user") else {
                throw VendorWebhookRefusal(.invalidInput, "message.receiver_type must be user or group")
            }
            let hooks = self.cometChatWebhooks(of: app.id).filter { $0.hears(request.event) }
            guard !hooks.isEmpty else {
                throw VendorWebhookRefusal(
                    .unprocessable,
                    "app \(app.id) has no enabled CometChat webhook with the message_sent trigger: create one with "
                        + "POST /apps/\(app.id)/webhooks and add the trigger, or list it under apps[].webhooks"
                )
            }
            let objects = try await self.objects(keys, app: app, base: base, stream: false)
            let id = request.message.id ?? String(self.messageIDs.wrappingAdd(1, ordering: .relaxed).newValue)
            var sent: [(sent: Sent, payload: [UInt8])] = []
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
                let payload = try Self.document(body)
                let delivery = self.deliveries.enqueue(
                    VendorDeliveryPlans.cometChat(body: payload, webhook: hook),
                    to: url,
                    target: hook.id,
                    app: app.id,
                    eventID: nil,
                    eventName: request.event,
                    key: keys.first ?? ""
                )
                sent.append((Sent(delivery: delivery, target: hook.id, url: hook.webhookURL, webhookID: nil), payload))
            }
            return sent
        default:
            throw VendorWebhookRefusal(.invalidInput, "vendor must be stream or cometchat")
        }
    }

    /// The attached objects with their links: Stream's CDN signed links (and an image's resize or a video's
    /// poster as `thumb_url`), or CometChat media URLs.
    private func objects(_ keys: [String], app: MediaApp, base: String, stream: Bool) async throws -> [LinkedObject] {
        let now = self.clock.unixSeconds
        var objects: [LinkedObject] = []
        for key in keys {
            guard !key.isEmpty, let storeKey = try? ObjectKey(app.id + "/" + key),
                let object = try await self.store.metadata(for: storeKey)
            else {
                throw VendorWebhookRefusal(.notFound, "no object \(key.prefix(256)) in app \(app.id)")
            }
            let header = ImageHeader(extras: object.extras)
            let name = object.extras["original_name"] ?? key.split(separator: "/").last.map(String.init) ?? key
            var linked = LinkedObject(
                name: name,
                contentType: object.contentType,
                size: object.size,
                width: header?.width,
                height: header?.height,
                url: "",
                thumbURL: nil
            )
            if stream {
                linked.url = try self.links.signedURL(app: app, object: object, now: now, base: base)
                if let poster = object.extras["poster"], let posterKey = try? ObjectKey(poster),
                    let posterObject = try await self.store.metadata(for: posterKey)
                {
                    linked.thumbURL = try self.links.signedURL(app: app, object: posterObject, now: now, base: base)
                } else if linked.kind == "image" {
                    linked.thumbURL = linked.url + "&" + ImageTransform.thumbnail.normalized
                }
            } else {
                linked.url = try self.links.mediaURL(app: app, key: storeKey, now: now, base: base)
            }
            objects.append(linked)
        }
        return objects
    }

    /// Whether `cid` is a Stream channel id, `type:id`, each part 1 to 64 characters without `:`.
    static func isChannelID(_ cid: String) -> Bool {
        let parts = cid.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { (1...64).contains($0.count) }
    }

    /// The JSON bytes of a payload: keys sorted, slashes as they are.
    static func document(_ body: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes]))
    }
}

/// Why `POST /_mockcdn/webhooks` was refused: 400 for a bad request, 404 for an unknown app or key, 422 when
/// the app has no webhook configured for the event.
struct VendorWebhookRefusal: CategorizedError, Equatable {
    let category: ErrorCategory
    let message: String

    init(_ category: ErrorCategory, _ message: String) {
        self.category = category
        self.message = message
    }

    var publicMessage: String { self.message }
}
