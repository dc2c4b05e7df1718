import Foundation

/// Stream's `message.new` webhook body, with the keys of the documented example (`type`, `cid`,
/// `channel_type`, `channel_id`, `message`, `user`, `created_at`, `members`, `request_info`) and the
/// OpenAPI `MessageNewEvent`'s required `message_id` and `watcher_count`. Attachments are written as
/// stream-chat-js's message composer writes them: an image has `image_url`, `fallback` and its size, any
/// other file `asset_url` and `title`; each has `file_size` and `mime_type`, and `thumb_url` when there is one.
enum StreamMessageNew {
    /// The body, as a JSON object.
    ///
    /// - Parameters:
    ///   - message: the message; `channel` is `type:id`.
    ///   - id: the message id.
    ///   - attachments: the attached objects with their signed links.
    ///   - time: when it was sent, ISO 8601.
    ///   - userAgent: what `request_info.user_agent` says.
    /// - Returns: the object `document` serialises.
    static func body(
        _ message: VendorMessage,
        id: String,
        attachments: [LinkedObject],
        time: String,
        userAgent: String
    ) -> [String: Any] {
        let cid = message.channel ?? ""
        let parts = cid.split(separator: ":", maxSplits: 1).map(String.init)
        let user: [String: Any] = [
            "id": message.user, "role": "user", "created_at": time, "updated_at": time, "banned": false,
            "online": false, "channel_unread_count": 0, "channel_last_read_at": time, "total_unread_count": 0,
            "unread_channels": 0, "unread_count": 0,
        ]
        let text = message.text ?? ""
        let body: [String: Any] = [
            "type": "message.new",
            "cid": cid,
            "channel_type": parts.first ?? "",
            "channel_id": parts.count > 1 ? parts[1] : "",
            "message_id": id,
            "message": [
                "id": id, "text": text, "html": text.isEmpty ? "" : "<p>\(Self.escaped(text))</p>\n",
                "type": "regular", "user": user, "attachments": attachments.map(Self.attachment),
                "latest_reactions": [Any](), "own_reactions": [Any](), "reaction_counts": NSNull(),
                "reaction_scores": [String: Any](), "reply_count": 0, "cid": cid, "created_at": time,
                "updated_at": time, "mentioned_users": [Any](),
            ] as [String: Any],
            "user": user,
            "created_at": time,
            "members": [
                ["user_id": message.user, "user": user, "created_at": time, "updated_at": time] as [String: Any]
            ],
            "watcher_count": 0,
            "request_info": ["type": "server", "ip": "127.0.0.1", "user_agent": userAgent, "sdk": "mockcdn"],
        ]
        return body
    }

    /// One attachment as stream-chat-js's composer writes it.
    ///
    /// - Parameter object: the attached object.
    /// - Returns: the attachment.
    static func attachment(_ object: LinkedObject) -> [String: Any] {
        var attachment: [String: Any] = [
            "type": object.kind, "file_size": object.size, "mime_type": object.contentType,
        ]
        if object.kind == "image" {
            attachment["image_url"] = object.url
            attachment["fallback"] = object.name
            if let width = object.width, let height = object.height {
                attachment["original_width"] = width
                attachment["original_height"] = height
            }
        } else {
            attachment["asset_url"] = object.url
            attachment["title"] = object.name
        }
        if let thumb = object.thumbURL { attachment["thumb_url"] = thumb }
        return attachment
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
