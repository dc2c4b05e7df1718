import Foundation

/// What the caller says about an object it stores.
public struct ObjectAttributes: Sendable, Equatable {
    public var contentType: String
    /// The uploader's user id, when known.
    public var owner: String?
    /// Anything else worth keeping: channel, image width/height/frames, original name.
    public var extras: [String: String]
    public var created: Date

    public init(contentType: String, owner: String? = nil, extras: [String: String] = [:], created: Date = Date()) {
        self.contentType = contentType
        self.owner = owner
        self.extras = extras
        self.created = created
    }
}
