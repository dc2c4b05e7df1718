/// A CloudFront key pair of an app.
public struct CloudFrontKeyPair: Sendable {
    /// What the key may still do.
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// Signs new links (one per app) and verifies.
        case active
        /// Verifies links signed before a rotation.
        case accepted
        /// Rejected: links it signed get 403.
        case retired
    }

    /// The id links carry as `Key-Pair-Id`, e.g. `K2JCJMDEHXQW5F`.
    public let id: String
    /// RSA or ECDSA P-256.
    public let key: CloudFrontKey
    public var status: Status

    /// Whether links it signed still verify: an active or accepted key does, a retired one does not.
    public var verifies: Bool { self.status != .retired }

    public init(id: String, key: CloudFrontKey, status: Status) {
        self.id = id
        self.key = key
        self.status = status
    }
}
