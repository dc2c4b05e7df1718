/// The message a test has a vendor webhook tell of (`POST /_mockcdn/webhooks`): who sent it where, its text,
/// and the app's objects it carries.
struct VendorMessage: Codable, Sendable, Equatable {
    /// The message id; made up when left out (a UUID for Stream, a number for CometChat, as theirs look).
    var id: String?
    var text: String?
    /// The sender's user id (Stream's `user.id`, CometChat's `sender` uid).
    var user: String
    /// Stream: the channel's cid, `type:id` (`messaging:general`).
    var channel: String?
    /// CometChat: the receiving user's uid or group's guid.
    var receiver: String?
    /// CometChat: `user` (the default) or `group`.
    var receiverType: String?

    enum CodingKeys: String, CodingKey {
        case id, text, user, channel, receiver
        case receiverType = "receiver_type"
    }
}

/// A stored object a vendor webhook attaches, with the links MockCDN hands out for it.
struct LinkedObject: Sendable, Equatable {
    /// The name the uploader gave it (else the key's last segment).
    var name: String
    var contentType: String
    var size: Int
    /// An image's pixel size, when known.
    var width: Int?
    var height: Int?
    /// The link to the object: a Stream CDN signed link, or a CometChat media URL.
    var url: String
    /// A thumbnail link: an image's resize, a video's poster.
    var thumbURL: String?

    /// What the vendors' composers call its kind, by its media type: `image`, `video`, `audio` or `file`
    /// (stream-chat-js `getAttachmentTypeFromMimeType`; CometChat's message types have the same names).
    var kind: String {
        if self.contentType.hasPrefix("image/"), !self.contentType.contains("photoshop") { return "image" }
        if self.contentType.hasPrefix("video/") { return "video" }
        if self.contentType.hasPrefix("audio/") { return "audio" }
        return "file"
    }

    /// The name's extension, without the dot (CometChat's `extension`); empty when it has none.
    var fileExtension: String {
        guard let dot = self.name.lastIndex(of: "."), dot != self.name.startIndex else { return "" }
        return String(self.name[self.name.index(after: dot)...]).lowercased()
    }
}
