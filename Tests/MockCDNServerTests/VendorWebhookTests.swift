import Foundation
import MockCDNCore
import Testing

@testable import MockCDNServer

/// The pure parts of vendor-shaped webhooks: Stream's `message.new` and CometChat's `message_sent` bodies,
/// their attachments, each vendor's retry rule, Stream's webhook settings, CometChat's webhook checks, and
/// the gzip a compressed Stream body travels in.
@Suite("Vendor webhooks")
struct VendorWebhookTests {
    static let image = LinkedObject(
        name: "Photo.JPG",
        contentType: "image/jpeg",
        size: 12_345,
        width: 1920,
        height: 1080,
        url: "http://cdn/demo/images/a.jpg?Policy=p",
        thumbURL: "http://cdn/demo/images/a.jpg?Policy=p&w=150&h=150"
    )
    static let video = LinkedObject(
        name: "clip.mp4",
        contentType: "video/mp4",
        size: 99,
        url: "http://cdn/demo/attachments/clip.mp4?Expires=1",
        thumbURL: "http://cdn/demo/posters/clip.jpg?Expires=1"
    )

    @Test(
        "an attachment's kind follows stream-chat-js's getAttachmentTypeFromMimeType",
        arguments: [
            ("image/png", "image"), ("image/vnd.adobe.photoshop", "file"), ("video/mp4", "video"),
            ("audio/mpeg", "audio"), ("application/pdf", "file"), ("text/plain", "file"),
        ]
    )
    func kind(contentType: String, kind: String) {
        var object = Self.image
        object.contentType = contentType
        #expect(object.kind == kind)
    }

    @Test(
        "the extension is the name's last suffix, lower case",
        arguments: [("Photo.JPG", "jpg"), ("archive.tar.gz", "gz"), ("README", ""), (".profile", "")]
    )
    func fileExtension(name: String, expected: String) {
        var object = Self.image
        object.name = name
        #expect(object.fileExtension == expected)
    }

    @Test("Stream attachments are written as the composer writes them: image_url and fallback for an image")
    func streamAttachments() throws {
        let image = StreamMessageNew.attachment(Self.image)
        #expect(image["type"] as? String == "image")
        #expect(image["image_url"] as? String == Self.image.url)
        #expect(image["fallback"] as? String == "Photo.JPG")
        #expect(image["thumb_url"] as? String == Self.image.thumbURL)
        #expect(image["original_width"] as? Int == 1920 && image["original_height"] as? Int == 1080)
        #expect(image["asset_url"] == nil && image["title"] == nil)
        let video = StreamMessageNew.attachment(Self.video)
        #expect(video["type"] as? String == "video")
        #expect(video["asset_url"] as? String == Self.video.url)
        #expect(video["title"] as? String == "clip.mp4")
        #expect(video["file_size"] as? Int == 99 && video["mime_type"] as? String == "video/mp4")
        #expect(video["image_url"] == nil)
    }

    @Test("a message.new body has the documented top-level keys, and the message its channel and user")
    func streamBody() throws {
        let message = VendorMessage(id: nil, text: "a <b>", user: "alice", channel: "messaging:general")
        let body = StreamMessageNew.body(
            message,
            id: "m1",
            attachments: [Self.image],
            time: "2026-11-25T10:00:00.000Z",
            userAgent: "MockCDN/test"
        )
        #expect(
            Set(body.keys) == [
                "type", "cid", "channel_type", "channel_id", "message_id", "message", "user", "created_at",
                "members", "watcher_count", "request_info",
            ]
        )
        #expect(body["type"] as? String == "message.new")
        #expect(body["channel_type"] as? String == "messaging" && body["channel_id"] as? String == "general")
        let inner = try #require(body["message"] as? [String: Any])
        #expect(inner["id"] as? String == "m1" && inner["text"] as? String == "a <b>")
        #expect(inner["html"] as? String == "<p>a &lt;b&gt;</p>\n")
        #expect((inner["attachments"] as? [[String: Any]])?.count == 1)
        #expect((inner["user"] as? [String: Any])?["id"] as? String == "alice")
        // It serialises: no value JSONSerialization cannot write.
        let bytes = try VendorWebhooks.document(body)
        #expect(try JSONSerialization.jsonObject(with: Data(bytes)) is [String: Any])
    }

    @Test("a message_sent body has CometChat's envelope, uid strings, entities and the SDK attachment names")
    func cometChatBody() throws {
        let message = VendorMessage(id: nil, text: nil, user: "uid-2", receiver: "uid-1")
        let body = CometChatMessageSent.body(
            message,
            id: "7",
            attachments: [Self.image, Self.video],
            sentAt: 1_696_934_912,
            appID: "demo",
            region: "us",
            webhook: "wh1"
        )
        #expect(Set(body.keys) == ["trigger", "data", "appId", "region", "webhook"])
        let inner = try #require((body["data"] as? [String: Any])?["message"] as? [String: Any])
        #expect(inner["id"] as? String == "7")
        #expect(inner["conversationId"] as? String == "uid-1_user_uid-2")
        #expect(inner["sender"] as? String == "uid-2" && inner["receiver"] as? String == "uid-1")
        #expect(inner["type"] as? String == "image" && inner["category"] as? String == "message")
        #expect(inner["sentAt"] as? Int64 == 1_696_934_912)
        let data = try #require(inner["data"] as? [String: Any])
        #expect(data["text"] == nil)
        #expect(data["url"] as? String == Self.image.url)
        let attachments = try #require(data["attachments"] as? [[String: Any]])
        #expect(
            attachments.map { Set($0.keys) }
                == Array(repeating: ["url", "name", "extension", "mimeType", "size"], count: 2)
        )
        #expect(attachments[1]["extension"] as? String == "mp4" && attachments[1]["size"] as? Int == 99)
        let entities = try #require(data["entities"] as? [String: Any])
        #expect(Set(entities.keys) == ["sender", "receiver"])
    }

    @Test("a group message's conversation is group_GUID")
    func cometChatGroup() throws {
        let message = VendorMessage(user: "uid-1", receiver: "team", receiverType: "group")
        let body = CometChatMessageSent.body(
            message,
            id: "1",
            attachments: [],
            sentAt: 0,
            appID: "demo",
            region: "eu",
            webhook: "w"
        )
        let inner = try #require((body["data"] as? [String: Any])?["message"] as? [String: Any])
        #expect(inner["conversationId"] as? String == "group_team")
        #expect(inner["type"] as? String == "text")
    }

    @Test(
        "Stream retries 408, 429, 5xx and timeouts to 3 attempts, network errors to 2, and no other answer",
        arguments: [
            (1, "failed", 503, 2), (2, "failed", 503, 5), (3, "failed", 503, nil), (1, "failed", 408, 2),
            (1, "failed", 429, 2), (1, "failed", 400, nil), (1, "failed", 404, nil), (1, "timeout", nil, 2),
            (2, "timeout", nil, 5), (1, "unreachable", nil, 2), (2, "unreachable", nil, nil),
            (1, "dropped", nil, 2),
        ] as [(Int, String, Int?, Int?)]
    )
    func streamRetry(attempt: Int, outcome: String, status: Int?, delay: Int?) {
        #expect(StreamDeliveryPlan.retry(attempt: attempt, outcome: outcome, status: status) == delay)
    }

    @Test("CometChat retries at +10 s and +30 s with retryOnFailure, and never without")
    func cometChatRetry() {
        var hook = CometChatWebhook(id: "w", name: "w", webhookURL: "http://h/x", retryOnFailure: true)
        let on = CometChatDeliveryPlan.plan(body: [], webhook: hook)
        #expect((1...3).map { on.retry($0, "failed", 500) } == [10, 30, nil])
        #expect(on.timeout == .seconds(2))
        hook.retryOnFailure = false
        let off = CometChatDeliveryPlan.plan(body: [], webhook: hook)
        #expect(off.retry(1, "timeout", nil) == nil)
    }

    @Test("Stream's headers: a stable X-Webhook-Id, the attempt, the key, and the signature over the plain body")
    func streamHeaders() throws {
        let body = Array("what do ya want for nothing?".utf8)
        let plan = StreamDeliveryPlan.plan(body: body, webhookID: "id-1", apiKey: "k", secret: "Jefe", gzip: true)
        let first = Dictionary(uniqueKeysWithValues: plan.headers("d1", 1).map { ($0.name, $0.value) })
        let second = Dictionary(uniqueKeysWithValues: plan.headers("d1", 2).map { ($0.name, $0.value) })
        #expect(first["X-Webhook-Id"] == "id-1" && second["X-Webhook-Id"] == "id-1")
        #expect(first["X-Webhook-Attempt"] == "1" && second["X-Webhook-Attempt"] == "2")
        #expect(first["X-Api-Key"] == "k" && first["Content-Encoding"] == "gzip")
        // RFC 4231 test case 2, over the uncompressed bytes.
        #expect(first["X-Signature"] == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(plan.body.prefix(2) == [0x1f, 0x8b])
    }

    @Test(
        "gzip is a stored-block member with CRC-32 and size (RFC 1952)",
        arguments: [0, 1, 65_535, 65_536, 200_000]
    )
    func gzip(count: Int) {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let wrapped = Gzip.wrap(bytes)
        #expect(wrapped.prefix(3) == [0x1f, 0x8b, 8])
        let blocks = max(1, (count + 65_534) / 65_535)
        #expect(wrapped.count == 10 + blocks * 5 + count + 8)
        #expect(Array(wrapped.suffix(4)) == (0..<4).map { UInt8(truncatingIfNeeded: count >> (8 * $0)) })
    }

    @Test("the CRC-32 of a gzip member is zlib's (check value of 123456789)")
    func gzipCRC() {
        let wrapped = Gzip.wrap(Array("123456789".utf8))
        #expect(Array(wrapped.suffix(8).prefix(4)) == [0x26, 0x39, 0xf4, 0xcb])
    }

    @Test("PATCH /app webhook settings: members replace, event_hooks get ids, an empty list clears them")
    func streamSettings() throws {
        var settings = StreamWebhookSettings()
        try settings.apply(StreamWebhookSettings(webhookURL: "http://h/a"), now: "t0")
        #expect(settings.targets(for: "message.new").map(\.url.absoluteString) == ["http://h/a"])
        try settings.apply(
            StreamWebhookSettings(
                webhookEvents: ["message.updated"],
                eventHooks: [StreamEventHook(eventTypes: ["message.new"], webhookURL: "http://h/b")]
            ),
            now: "t1"
        )
        let targets = settings.targets(for: "message.new")
        #expect(targets.map(\.url.absoluteString) == ["http://h/b"])
        #expect(settings.eventHooks?.first?.id?.isEmpty == false)
        #expect(settings.eventHooks?.first?.createdAt == "t1")
        try settings.apply(StreamWebhookSettings(eventHooks: []), now: "t2")
        #expect(settings.eventHooks == [])
        #expect(throws: StreamWebhookSettings.Invalid.self) {
            try settings.apply(StreamWebhookSettings(webhookURL: "ftp://h/x"), now: "t3")
        }
    }

    @Test(
        "CometChat webhooks are checked as its API checks them",
        arguments: [
            (CometChatWebhook(id: "", name: "n", webhookURL: "http://h/x"), "id is required: 1 to 50 characters"),
            (
                CometChatWebhook(id: String(repeating: "a", count: 51), name: "n", webhookURL: "http://h/x"),
                "id is required: 1 to 50 characters"
            ),
            (
                CometChatWebhook(id: "w", name: "n", webhookURL: "h/x"),
                "webhookURL must be an http:// or https:// URL with a host"
            ),
            (
                CometChatWebhook(id: "w", name: "n", webhookURL: "http://h/x", useBasicAuth: true),
                "username is required when useBasicAuth is true"
            ),
            (
                CometChatWebhook(id: "w", name: "n", webhookURL: "http://h/x", triggers: ["nope"]),
                "nope is not a CometChat trigger (such as message_sent)"
            ),
        ]
    )
    func cometChatChecks(hook: CometChatWebhook, message: String) {
        #expect(throws: CometChatWebhook.Invalid(message: message)) { try hook.validate() }
    }

    @Test("Basic auth is the Base64 of username:password, and a webhook hears only its enabled triggers")
    func cometChatAuthorization() {
        var hook = CometChatWebhook(
            id: "w",
            name: "w",
            webhookURL: "http://h/x",
            useBasicAuth: true,
            username: "Aladdin",
            password: "open sesame",
            triggers: ["message_sent"]
        )
        // RFC 7617's example.
        #expect(hook.authorization == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(hook.hears("message_sent") && !hook.hears("message_edited"))
        hook.enabled = false
        #expect(!hook.hears("message_sent"))
    }
}
