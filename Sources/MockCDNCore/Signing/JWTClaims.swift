/// What a Stream JWT says about its bearer.
///
/// Dates are whole Unix seconds: a fractional NumericDate is rounded up (so `now < exp` and `now < nbf` read
/// the same as on the exact value), and one beyond `Int64` saturates (an `exp` of 1e30 never expires).
public struct JWTClaims: Sendable, Equatable {
    /// `{"server": true}`, or no `user_id` at all: a backend token, allowed everything.
    public var isServer: Bool
    /// `{"user_id": "..."}`: a user token.
    public var userID: String?
    public var expiresAt: Int64?
    public var issuedAt: Int64?
    public var notBefore: Int64?

    public init(
        isServer: Bool = false,
        userID: String? = nil,
        expiresAt: Int64? = nil,
        issuedAt: Int64? = nil,
        notBefore: Int64? = nil
    ) {
        self.isServer = isServer
        self.userID = userID
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.notBefore = notBefore
    }
}
