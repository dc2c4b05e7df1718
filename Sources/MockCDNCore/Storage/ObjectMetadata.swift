import Foundation

/// What the store knows about an object once it is complete.
public struct ObjectMetadata: Sendable, Equatable, Codable {
    public var key: String
    public var size: Int
    public var contentType: String
    /// SHA-256 of the bytes, lower-case hex; nil for an object stored with an ETag of its own and no SHA-256
    /// (`ObjectIntake.Digest.etagOnly`: S3 writes whose signature promised no payload hash). Absent from the
    /// record then.
    public var sha256: String?
    /// Quoted strong entity tag: the caller's (`ObjectAttributes.etag`), or derived from the SHA-256.
    public var etag: String
    /// Whole seconds: HTTP dates (Last-Modified) carry no more.
    public var created: Date
    public var owner: String?
    public var extras: [String: String]

    /// - Precondition: `sha256` or `attributes.etag` is given.
    public init(key: ObjectKey, size: Int, sha256: [UInt8]?, attributes: ObjectAttributes) {
        precondition(sha256 != nil || attributes.etag != nil, "an object stored without a SHA-256 needs an ETag")
        self.key = key.rawValue
        self.size = size
        self.contentType = attributes.contentType
        self.sha256 = sha256?.hexString
        self.etag = attributes.etag ?? "\"" + (sha256 ?? []).prefix(16).hexString + "\""
        self.created = Date(timeIntervalSince1970: attributes.created.timeIntervalSince1970.rounded(.down))
        self.owner = attributes.owner
        self.extras = attributes.extras
    }

    enum CodingKeys: String, CodingKey {
        case key, size, sha256, etag, created, owner, extras
        case contentType = "content_type"
    }
}
