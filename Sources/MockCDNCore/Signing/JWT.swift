import Foundation

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
    static let criticalExtension = JWTError(
        kind: .malformed,
        message: "JWTAuth error: the crit header names extensions this server does not support"
    )
    static let signatureMismatch = JWTError(
        kind: .signatureMismatch,
        message: "JWTAuth error: signature is not valid. Make sure the token is created using the secret key"
    )
    static let expired = JWTError(kind: .expired, message: "JWTAuth error: token has expired")
    static let notYetValid = JWTError(kind: .notYetValid, message: "JWTAuth error: token used before issue at (iat)")
    static let notBefore = JWTError(kind: .notYetValid, message: "JWTAuth error: token is not valid yet (nbf)")
    static let noSubject = JWTError(
        kind: .noSubject,
        message: "JWTAuth error: token has server:false and no user_id"
    )

    static func duplicateMember(in part: String) -> JWTError {
        JWTError(kind: .malformed, message: "JWTAuth error: the \(part) repeats a member name")
    }

    static func claimType(_ rule: String) -> JWTError {
        JWTError(kind: .malformed, message: "JWTAuth error: " + rule)
    }
    static func notANumber(_ claim: String) -> JWTError {
        JWTError(kind: .malformed, message: "JWTAuth error: \(claim) must be a number")
    }

    static func outOfRange(_ claim: String) -> JWTError {
        JWTError(kind: .malformed, message: "JWTAuth error: \(claim) is a number out of range")
    }
}

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
        if let expiresAt = claims.expiresAt, now >= expiresAt { throw .expired }
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

/// One member of a JWT header or payload, as far as the verifier cares: its JSON kind, and the value when it
/// is a boolean, number or string.
///
/// Decoded with `JSONDecoder`, which keeps JSON's kinds apart: `JSONSerialization` bridges `1` to a `Bool`
/// and `true` to a number, which is how `"server":1` once made a server token.
enum JSONMember: Decodable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array
    case object
    /// A number beyond what a `Double` holds (`1e400`): the decoder cannot read it, so not even its sign is
    /// known.
    case unrepresentableNumber

    /// Accepts any JSON value without reading it: nested arrays and objects only need their kind.
    private struct Skipped: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if (try? container.decode([Skipped].self)) != nil {
            self = .array
        } else if (try? container.decode([String: Skipped].self)) != nil {
            self = .object
        } else {
            // Every other JSON kind was ruled out above: what is left is a number out of a Double's range.
            self = .unrepresentableNumber
        }
    }

    /// Decodes a JWT part that must be one JSON object, UTF-8, with each member name once.
    ///
    /// - Parameters:
    ///   - bytes: the part, base64url-decoded.
    ///   - part: `header` or `payload`, for the message.
    /// - Returns: the members by name.
    /// - Throws: `JWTError` of kind `malformed`.
    static func object(_ bytes: [UInt8], part: String) throws(JWTError) -> [String: JSONMember] {
        // RFC 7519 7.2 says UTF-8. Raw NUL is never valid in UTF-8 JSON but is in UTF-16 and UTF-32, which the
        // decoder would otherwise sniff and accept, and which the member count below cannot read.
        guard !bytes.contains(0), String(validating: bytes, as: UTF8.self) != nil,
            let members = try? JSONDecoder().decode([String: JSONMember].self, from: Data(bytes))
        else { throw .malformed }
        // RFC 7515 5.2 and RFC 7519 4: reject duplicate names, or keep the last. The decoder keeps the first,
        // so a token could show one reader `"user_id":"alice"` and this one another; refusing is the safe way.
        guard topLevelMemberCount(bytes) == members.count else { throw .duplicateMember(in: part) }
        return members
    }

    /// How many members the top-level object of well-formed JSON has, counted on its bytes: one `:` each
    /// outside strings at depth 1. The decoder's dictionary holds one entry per distinct name, so a smaller
    /// count there means a repeated name.
    ///
    /// - Parameter json: UTF-8 JSON already known to be well formed.
    /// - Returns: the number of members, repeats included.
    static func topLevelMemberCount(_ json: [UInt8]) -> Int {
        var depth = 0
        var count = 0
        var inString = false
        var escaped = false
        for byte in json {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ":") where depth == 1: count += 1
            default: break
            }
        }
        return count
    }
}
