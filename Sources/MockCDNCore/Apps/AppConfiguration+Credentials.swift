/// The credentials an app's clients present, minted the one way the CLI, `POST /_mockcdn/tokens` and the
/// test harness all use.
extension AppConfiguration {
    /// A Stream JWT: `{"user_id":...}` for `user`, `{"server":true}` without one; `iat` when `issuedAt` is
    /// given, and `exp` when a `lifetime` is given too.
    public func streamToken(user: String?, issuedAt: Int64? = nil, lifetime: Int64? = nil) -> String {
        var claims: [String: any Sendable] = user.map { ["user_id": $0] } ?? ["server": true]
        if let issuedAt {
            claims["iat"] = issuedAt
            if let lifetime { claims["exp"] = issuedAt + lifetime }
        }
        return JWT.sign(claims, secret: self.apiSecret)
    }

    /// A File Access Token for `user`, valid `lifetime` seconds from `issuedAt`.
    public func fileAccessToken(user: String, issuedAt: Int64, lifetime: Int64) -> String {
        FileAccessToken.issue(
            FileAccessClaims(appID: self.appID, userID: user, issuedAt: issuedAt, expiresAt: issuedAt + lifetime),
            key: HMACKey(self.apiSecret)
        )
    }
}
