import Foundation

/// What the caller says about an object it stores.
public struct ObjectAttributes: Sendable, Equatable {
    public var contentType: String
    /// The uploader's user id, when known.
    public var owner: String?
    /// Anything else worth keeping: channel, image width/height/frames, original name.
    public var extras: [String: String]
    public var created: Date
    /// The quoted entity tag to keep, when the caller computes its own (S3's MD5 of the bytes, or of a multipart
    /// upload's parts); nil for the store's, derived from the SHA-256.
    public var etag: String?

    public init(
        contentType: String,
        owner: String? = nil,
        extras: [String: String] = [:],
        created: Date = Date(),
        etag: String? = nil
    ) {
        self.contentType = contentType
        self.owner = owner
        self.extras = extras
        self.created = created
        self.etag = etag
    }
}
