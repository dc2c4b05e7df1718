import Foundation
import MockCDNCore

/// Vendor-shaped webhooks on demand: a test asks (`POST /_mockcdn/webhooks`) for a vendor's message event
/// with some of the app's objects attached, and each of the app's webhooks that hears it gets a delivery
/// through the upload events' delivery service.
///
/// This hub checks what every vendor's request shares (the app, the message's user, the keys), finds the
/// attached objects and queues what a vendor's hook plans. Each vendor's settings, payload, headers, time
/// limit and retry rule live with its surface (`Stream/Webhooks/`, `CometChat/Webhooks/`). Uploading alone
/// sends no webhook in either product. The settings live in the process, as the notification targets do; a
/// reset forgets them.
final class VendorWebhooks: Sendable {
    /// One vendor a request may name.
    struct Vendor: Sendable {
        /// The name a request gives (`stream`, `cometchat`).
        let name: String
        let hook: any VendorHook
    }

    let apps: AppRegistry
    let store: any ObjectStore
    let deliveries: WebhookDeliveries
    /// The vendors, in the order a refusal names them.
    let vendors: [Vendor]

    /// The most objects one message attaches (CometChat's `FILE_COUNT_MAX` is 10; Stream's is 30).
    static let maximumAttachments = 30

    /// A hub for `apps`.
    ///
    /// - Parameters:
    ///   - apps: the apps (keys, secrets, regions).
    ///   - store: where attached objects are looked up.
    ///   - deliveries: the delivery service the upload events use.
    ///   - vendors: each vendor's hook.
    init(apps: AppRegistry, store: any ObjectStore, deliveries: WebhookDeliveries, vendors: [Vendor]) {
        self.apps = apps
        self.store = store
        self.deliveries = deliveries
        self.vendors = vendors
    }

    /// Forgets every vendor's run-time settings (`/_mockcdn/reset`): the config file's come back.
    func clear() {
        for vendor in self.vendors { vendor.hook.clear() }
    }

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

    /// Checks the request, lets its vendor's hook build the payload for each configured URL that hears the
    /// event, and queues a delivery to each.
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
        guard let hook = self.vendors.first(where: { $0.name == request.vendor })?.hook else {
            throw VendorWebhookRefusal(
                .invalidInput,
                "vendor must be " + self.vendors.map(\.name).joined(separator: " or ")
            )
        }
        guard request.event == hook.event else {
            throw VendorWebhookRefusal(.invalidInput, "event must be \(hook.event) for \(request.vendor)")
        }
        let outgoing = try await hook.deliveries(
            of: request,
            app: app,
            attachments: VendorAttachments(keys: keys, app: app, store: self.store),
            base: base
        )
        return outgoing.map { delivery in
            let id = self.deliveries.enqueue(
                delivery.plan,
                to: delivery.url,
                target: delivery.target,
                app: app.id,
                eventID: nil,
                eventName: request.event,
                key: keys.first ?? ""
            )
            return (
                Sent(
                    delivery: id,
                    target: delivery.target,
                    url: delivery.url.absoluteString,
                    webhookID: delivery.webhookID
                ),
                delivery.payload
            )
        }
    }

    /// The JSON bytes of a payload: keys sorted, slashes as they are.
    static func document(_ body: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes]))
    }
}

/// One vendor's webhooks: its settings, as the vendor's own routes and the config file set them, and the
/// payload, headers, time limit and retry rule of a delivery.
protocol VendorHook: Sendable {
    /// The event it sends (`message.new`, `message_sent`).
    var event: String { get }

    /// Checks a request for this vendor, finds the app's webhooks that hear its event, and plans a delivery to
    /// each.
    ///
    /// - Parameters:
    ///   - request: the request, its app, keys and event already checked.
    ///   - app: the app.
    ///   - attachments: the objects the message attaches, found when the hook asks.
    ///   - base: the base of the links the payload carries.
    /// - Returns: the deliveries to queue.
    /// - Throws: `VendorWebhookRefusal`.
    func deliveries(
        of request: VendorWebhooks.Request,
        app: MediaApp,
        attachments: VendorAttachments,
        base: String
    ) async throws -> [VendorDelivery]

    /// Forgets the run-time settings (`/_mockcdn/reset`).
    func clear()
}

/// A delivery a vendor's hook plans: the plan, where it goes, and the payload as signed.
struct VendorDelivery: Sendable {
    let plan: DeliveryPlan
    let url: URL
    /// What the log names as its target: `webhook_url`, an event hook's id, or a CometChat webhook's id.
    let target: String
    /// Stream's `X-Webhook-Id`.
    var webhookID: String? = nil
    let payload: [UInt8]
}

/// The objects a message attaches, found in the store with what every vendor's payload says of them; each
/// vendor gives them its own links.
struct VendorAttachments: Sendable {
    let keys: [String]
    let app: MediaApp
    let store: any ObjectStore

    /// Each key's stored object and its description, links left empty.
    ///
    /// - Throws: `VendorWebhookRefusal` (404) for a key the app does not have.
    func objects() async throws -> [(key: ObjectKey, object: ObjectMetadata, linked: LinkedObject)] {
        var objects: [(key: ObjectKey, object: ObjectMetadata, linked: LinkedObject)] = []
        for key in self.keys {
            guard !key.isEmpty, let storeKey = try? ObjectKey(self.app.id + "/" + key),
                let object = try await self.store.metadata(for: storeKey)
            else {
                throw VendorWebhookRefusal(.notFound, "no object \(key.prefix(256)) in app \(self.app.id)")
            }
            let header = ImageHeader(extras: object.extras)
            let name = object.extras["original_name"] ?? key.split(separator: "/").last.map(String.init) ?? key
            let linked = LinkedObject(
                name: name,
                contentType: object.contentType,
                size: object.size,
                width: header?.width,
                height: header?.height,
                url: "",
                thumbURL: nil
            )
            objects.append((storeKey, object, linked))
        }
        return objects
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
