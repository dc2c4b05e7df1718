/// What a File Access Token says about its bearer.
public struct FileAccessClaims: Sendable, Equatable {
    public var appID: String
    public var userID: String
    public var issuedAt: Int64
    public var expiresAt: Int64

    public init(appID: String, userID: String, issuedAt: Int64, expiresAt: Int64) {
        self.appID = appID
        self.userID = userID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}
