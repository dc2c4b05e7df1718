/// Why a JWT was refused. `expired` maps to Stream's code 40, the rest to code 5.
public struct JWTError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case malformed, unsupportedAlgorithm, signatureMismatch, expired, notYetValid, noSubject
    }

    public let kind: Kind
    public let message: String
    /// The token's `exp` (Unix seconds), on a refusal for expiry only, for the request journal's `expired_at`.
    public var expiredAt: Int64? = nil

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
    /// A token past its `exp`, which the journal dates.
    static func expired(at expiresAt: Int64) -> JWTError {
        JWTError(kind: .expired, message: "JWTAuth error: token has expired", expiredAt: expiresAt)
    }
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
