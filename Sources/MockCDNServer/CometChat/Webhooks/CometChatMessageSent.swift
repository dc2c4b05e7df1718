import Foundation

/// CometChat's `message_sent` webhook body: `{"trigger","data":{"message"},"appId","region","webhook"}`, the
/// message as the documented text example has it (uid strings for `sender` and `receiver`, the users under
/// `data.entities`, a numeric string id, Unix seconds). A media message is not documented: it has the type of
/// its first attachment (`image`, `video`, `audio`, `file`), and `data.attachments[]` with the SDK
/// `Attachment`'s names (`url`, `name`, `extension`, `mimeType`, `size` in bytes), and `data.url`, the first
/// one's URL, as `MediaMessage.getURL()` reads it.
enum CometChatMessageSent {
    /// The body, as a JSON object.
    ///
    /// - Parameters:
    ///   - message: the message; `receiver` and `receiver_type` say where it went.
    ///   - id: the message id (digits).
    ///   - attachments: the attached objects with their media URLs.
    ///   - sentAt: the clock's Unix seconds.
    ///   - appID: the app id.
    ///   - region: the app's CometChat region.
    ///   - webhook: the webhook's id.
    /// - Returns: the object `document` serialises.
    static func body(
        _ message: VendorMessage,
        id: String,
        attachments: [LinkedObject],
        sentAt: Int64,
        appID: String,
        region: String,
        webhook: String
    ) -> [String: Any] {
        let receiver = message.receiver ?? ""
        let receiverType = message.receiverType ?? "user"
        let conversation =
            receiverType == "group"
            ? "group_" + receiver : [message.user, receiver].sorted().joined(separator: "_user_")
        var data: [String: Any] = [
            "entities": [
                "sender": ["entity": Self.user(message.user, at: sentAt), "entityType": "user"],
                "receiver": [
                    "entity": receiverType == "group"
                        ? ["guid": receiver, "name": receiver, "type": "public", "conversationId": conversation]
                        : Self.user(receiver, at: sentAt).merging(["conversationId": conversation]) { $1 },
                    "entityType": receiverType,
                ] as [String: Any],
            ] as [String: Any]
        ]
        if let text = message.text { data["text"] = text }
        if !attachments.isEmpty {
            data["attachments"] = attachments.map(Self.attachment)
            data["url"] = attachments[0].url
        }
        return [
            "trigger": "message_sent",
            "data": [
                "message": [
                    "id": id, "conversationId": conversation, "sender": message.user, "receiverType": receiverType,
                    "receiver": receiver, "category": "message", "type": attachments.first?.kind ?? "text",
                    "data": data, "sentAt": sentAt, "updatedAt": sentAt,
                ] as [String: Any]
            ],
            "appId": appID,
            "region": region,
            "webhook": webhook,
        ]
    }

    /// One attachment with the SDK `Attachment`'s names.
    ///
    /// - Parameter object: the attached object.
    /// - Returns: the attachment.
    static func attachment(_ object: LinkedObject) -> [String: Any] {
        [
            "url": object.url, "name": object.name, "extension": object.fileExtension,
            "mimeType": object.contentType, "size": object.size,
        ]
    }

    private static func user(_ uid: String, at time: Int64) -> [String: Any] {
        ["uid": uid, "name": uid, "status": "available", "role": "default", "lastActiveAt": time]
    }
}
