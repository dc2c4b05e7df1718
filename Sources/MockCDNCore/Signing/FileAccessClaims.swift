/// What a File Access Token says about its bearer.
public struct FileAccessClaims: Sendable, Equatable {
    public var appID: String
    public var userID: String
    public var issuedAt: Int64
    public var expiresAt: Int64
    /// A token of a media URL that CometChat's files host handed out (`appId`/`apiKey` headers): a read with
    /// it answers a redirect to a presigned link, as CometChat's `?fat=` URLs lead to one, instead of the
    /// object.
    public var presign: Bool

    public init(appID: String, userID: String, issuedAt: Int64, expiresAt: Int64, presign: Bool = false) {
        self.appID = appID
        self.userID = userID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.presign = presign
    }
}
