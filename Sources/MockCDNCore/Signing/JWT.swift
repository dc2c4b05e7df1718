import Foundation

/// What a Stream JWT says about its bearer.
public struct JWTClaims: Sendable, Equatable {
    /// `{"server": true}`: a backend token, allowed everything.
    public var isServer: Bool
    /// `{"user_id": "..."}`: a user token.
    public var userID: String?
    public var expiresAt: Int64?
    public var issuedAt: Int64?

    public init(isServer: Bool = false, userID: String? = nil, expiresAt: Int64? = nil, issuedAt: Int64? = nil) {
        self.isServer = isServer
        self.userID = userID
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
    }
}

/// Why a JWT was refused. `expired` maps to Stream's code 40, the rest to code 5.
public struct JWTError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case malformed, unsupportedAlgorithm, signatureMismatch, expired, notYetValid, noSubject
    }

    public let kind: Kind
    public let message: String

    public var description: String { self.message }

    static let malformed = JWTError(kind: .malformed, message: "JWTAuth error: token is malformed")
    static let unsupportedAlgorithm = JWTError(
        kind: .unsupportedAlgorithm,
        message: "JWTAuth error: signature algorithm must be HS256"
    )
    static let signatureMismatch = JWTError(
        kind: .signatureMismatch,
        message: "JWTAuth error: signature is not valid. Make sure the token is created using the secret key"
    )
    static let expired = JWTError(kind: .expired, message: "JWTAuth error: token has expired")
    static let notYetValid = JWTError(kind: .notYetValid, message: "JWTAuth error: token used before issue at (iat)")
    static let noSubject = JWTError(
        kind: .noSubject,
        message: "JWTAuth error: token has neither server:true nor a user_id"
    )
}

/// HS256 JSON Web Tokens, as Stream uses them.
public enum JWT {
    /// The longest token accepted from a client.
    public static let maximumLength = 8192

    /// Makes a token (for the CLI, tests and fixtures).
    ///
    /// - Parameters:
    ///   - claims: the payload members (JSON-serialisable values).
    ///   - secret: the app's API secret.
    /// - Returns: `header.payload.signature`.
    public static func sign(_ claims: [String: any Sendable], secret: String) -> String {
        let header = base64URL(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload = base64URL(
            Array((try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])) ?? Data())
        )
        let input = header + "." + payload
        return input + "." + base64URL(HMAC.sha256(input, key: secret))
    }

    /// Verifies a token: HS256 only (never `none`), signature in constant time, then `exp` and `iat`
    /// against the clock.
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
            let headerBytes = decodeBase64URL(parts[0]),
            let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
            let payloadBytes = decodeBase64URL(parts[1]),
            let payload = try? JSONSerialization.jsonObject(with: Data(payloadBytes)) as? [String: Any],
            let signature = decodeBase64URL(parts[2])
        else { throw .malformed }
        guard header["alg"] as? String == "HS256" else { throw .unsupportedAlgorithm }
        let expected = key.authenticationCode(
            for: token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count).map { $0 }
        )
        guard SecureBytes.constantTimeEqual(expected, signature) else { throw .signatureMismatch }

        var claims = JWTClaims()
        claims.isServer = payload["server"] as? Bool ?? false
        claims.userID = payload["user_id"] as? String
        claims.expiresAt = (payload["exp"] as? NSNumber)?.int64Value
        claims.issuedAt = (payload["iat"] as? NSNumber)?.int64Value
        if let expiresAt = claims.expiresAt, now >= expiresAt { throw .expired }
        // A few seconds of leeway for clocks that disagree a little, as JWT libraries allow.
        if let issuedAt = claims.issuedAt, issuedAt > now + 5 { throw .notYetValid }
        guard claims.isServer || !(claims.userID ?? "").isEmpty else { throw .noSubject }
        return claims
    }

    /// base64url without padding.
    public static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decodeBase64URL(_ text: Substring) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            return nil
        }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}
