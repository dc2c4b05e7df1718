import Foundation

/// HS256 JSON Web Tokens, as Stream uses them.
public enum JWT {
    /// The longest token accepted from a client.
    public static let maximumLength = 8192
    /// Seconds a token's `iat` or `nbf` may lie ahead of the clock, for clocks that disagree a little (as JWT
    /// libraries allow).
    static let leeway: Int64 = 5

    /// Makes a token (for the CLI, tests and fixtures).
    ///
    /// - Parameters:
    ///   - claims: the payload members (JSON-serialisable values).
    ///   - secret: the app's API secret.
    /// - Returns: `header.payload.signature`.
    public static func sign(_ claims: [String: any Sendable], secret: String) -> String {
        let header = Base64.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8), .url)
        let payload = Base64.encode(
            Array((try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])) ?? Data()),
            .url
        )
        let input = header + "." + payload
        return input + "." + Base64.encode(HMAC.sha256(input, key: secret), .url)
    }

    /// Verifies a token: HS256 only (never `none`) and no `crit` extension, signature in constant time, then
    /// the claims' types and `exp`, `nbf` and `iat` against the clock.
    ///
    /// Claims are read by JSON kind, never by bridging: `exp`, `nbf` and `iat` must be numbers (a string,
    /// null, object or boolean is refused, not taken for "no expiry"), `server` a boolean (`1` and `"true"`
    /// are refused) and `user_id` a non-empty string. As on Stream, a token with no `user_id` is a server
    /// token unless it says `"server": false`.
    ///
    /// - Parameters:
    ///   - token: the token, without any `Bearer ` prefix.
    ///   - key: the app secret, prepared.
    ///   - now: the clock's Unix time.
    /// - Returns: the claims.
    /// - Throws: `JWTError`.
    public static func verify(_ token: String, key: HMACKey, now: Int64) throws(JWTError) -> JWTClaims {
        guard token.utf8.count <= maximumLength else { throw .malformed }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64.decode(parts[0], .url),
            let payloadBytes = Base64.decode(parts[1], .url),
            let signature = Base64.decode(parts[2], .url)
        else { throw .malformed }
        let header = try JSONMember.object(headerBytes, part: "header")
        let payload = try JSONMember.object(payloadBytes, part: "payload")
        guard header["alg"] == .string("HS256") else { throw .unsupportedAlgorithm }
        // RFC 7515 4.1.11: a recipient must refuse a token whose `crit` lists an extension it does not
        // understand, and this verifier understands none, so any `crit` at all is refused.
        guard header["crit"] == nil else { throw .criticalExtension }
        let expected = key.authenticationCode(
            for: token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count).map { $0 }
        )
        guard SecureBytes.constantTimeEqual(expected, signature) else { throw .signatureMismatch }

        var claims = JWTClaims()
        switch payload["user_id"] {
        case nil: break
        case .string(let userID) where !userID.isEmpty: claims.userID = userID
        default: throw .claimType("user_id must be a non-empty string")
        }
        switch payload["server"] {
        // Stream's rule: a token signed with the app secret that names no user is a server-side token
        // (getstream's server SDK makes exactly such tokens).
        case nil: claims.isServer = claims.userID == nil
        case .bool(let server): claims.isServer = server
        default: throw .claimType("server must be true or false")
        }
        claims.expiresAt = try numericDate("exp", in: payload)
        claims.notBefore = try numericDate("nbf", in: payload)
        claims.issuedAt = try numericDate("iat", in: payload)
        // `now` may be anything a test sets the clock to, so the leeway saturates rather than overflows.
        let horizon = now > Int64.max - leeway ? Int64.max : now + leeway
        if let expiresAt = claims.expiresAt, now >= expiresAt { throw .expired(at: expiresAt) }
        if let notBefore = claims.notBefore, notBefore > horizon { throw .notBefore }
        if let issuedAt = claims.issuedAt, issuedAt > horizon { throw .notYetValid }
        guard claims.isServer || !(claims.userID ?? "").isEmpty else { throw .noSubject }
        return claims
    }

    /// A NumericDate claim (RFC 7519 2) as whole seconds: absent is nil, any JSON kind but a number is refused.
    ///
    /// - Parameters:
    ///   - name: the claim, e.g. `exp`.
    ///   - payload: the token's claims.
    /// - Returns: the date rounded up to a whole second, saturated to `Int64`; nil when the claim is absent.
    /// - Throws: `JWTError` of kind `malformed` naming the claim.
    static func numericDate(_ name: String, in payload: [String: JSONMember]) throws(JWTError) -> Int64? {
        switch payload[name] {
        case nil: return nil
        case .number(let value): return seconds(value)
        case .unrepresentableNumber: throw .outOfRange(name)
        default: throw .notANumber(name)
        }
    }

    /// Whole seconds from a NumericDate. Rounding up keeps strict comparisons with an integer clock exact
    /// (`now < 1000.5` exactly when `now < 1001`); beyond `Int64` the date saturates.
    ///
    /// - Parameter value: a finite number of seconds.
    /// - Returns: the seconds, rounded up, clamped to `Int64`.
    static func seconds(_ value: Double) -> Int64 {
        let rounded = value.rounded(.up)
        // 2^63 is the first Double past Int64.max; -2^63 is Int64.min itself.
        if rounded >= 9_223_372_036_854_775_808.0 { return .max }
        if rounded <= -9_223_372_036_854_775_808.0 { return .min }
        return Int64(rounded)
    }
}
