import Foundation
import Hummingbird
import MockCDNCore

/// `POST /_mockcdn/webhooks`: a vendor-shaped webhook on demand (Stream's `message.new`, CometChat's
/// `message_sent`) telling of a message with the app's objects attached, delivered to the URLs the app
/// configured the vendor's way; answers 202 with the deliveries (`delivery`, `target`, `url`, and Stream's
/// `webhook_id`) and each payload as signed, uncompressed (`payloads`, in the same order).
struct VendorWebhooksController {
    let hooks: VendorWebhooks
    let links: LinkSigner

    static let shape = MemberShape.object([
        "app": .value, "vendor": .value, "event": .value, "keys": .value,
        "message": .object([
            "id": .value, "text": .value, "user": .value, "channel": .value, "receiver": .value,
            "receiver_type": .value,
        ]),
    ])

    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.post("webhooks") { request, context -> Response in
            let body = try await request.decodeJSONBody(VendorWebhooks.Request.self, shape: Self.shape)
            let sent = try await self.hooks.send(body, base: self.links.base(for: request))
            var document: [String: Any] = [
                "deliveries": sent.map { item -> [String: Any] in
                    var entry: [String: Any] = [
                        "delivery": item.sent.delivery, "target": item.sent.target, "url": item.sent.url,
                    ]
                    if let id = item.sent.webhookID { entry["webhook_id"] = id }
                    return entry
                }
            ]
            document["payloads"] = sent.compactMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) }
            let data = try JSONSerialization.data(
                withJSONObject: document,
                options: [.sortedKeys, .withoutEscapingSlashes]
            )
            return Response(
                status: .accepted,
                headers: [.contentType: "application/json; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
            )
        }
    }
}
