import Foundation

/// CometChat-style File Access Tokens: `<base64 payload>.<base64 HMAC-SHA256>` in the standard base64
/// alphabet (so `+ / =` appear and percent-encoding matters), keyed with the app's API secret. The payload
/// is JSON `{"app","exp","iat","nonce","uid"}` (and `"psn":true` on a token that leads to a presigned link);
/// the MAC covers the payload's base64 text.
public enum FileAccessToken {
    /// The longest token accepted from a client.
    public static let maximumLength = 4096

    /// Makes a token.
    ///
    /// - Parameters:
    ///   - claims: app, user and lifetime.
    ///   - key: the app's API secret, prepared.
    /// - Returns: the token.
    public static func issue(_ claims: FileAccessClaims, key: HMACKey) -> String {
        var payload: [String: any Sendable] = [
            "app": claims.appID,
            "uid": claims.userID,
            "iat": claims.issuedAt,
            "exp": claims.expiresAt,
            // Two tokens minted in the same second for the same user still differ.
            "nonce": SecureBytes.random(count: 9).hexString,
        ]
        if claims.presign { payload["psn"] = true }
        let json = (try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])) ?? Data()
        let encoded = Base64.encode(Array(json), .standard)
        return encoded + "." + Base64.encode(key.authenticationCode(for: encoded), .standard)
    }

    /// Checks a token for `appID`: format, app, MAC in constant time, then expiry against the clock.
    ///
    /// - Parameters:
    ///   - token: the token as the client sent it, percent-decoded.
    ///   - appID: the app whose media is read.
    ///   - key: that app's API secret, prepared.
    ///   - now: the clock's Unix time.
    /// - Returns: the claims.
    /// - Throws: `AccessDenied` naming the failed rule (never echoing the token).
    public static func verify(
        _ token: String,
        appID: String,
        key: HMACKey,
        now: Int64
    ) throws(AccessDenied) -> FileAccessClaims {
        let malformed = AccessDenied("Malformed File Access Token")
        guard token.utf8.count <= maximumLength else { throw malformed }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payloadBytes = Base64.decode(parts[0], .standard),
            let signature = Base64.decode(parts[1], .standard),
            let payload = try? JSONSerialization.jsonObject(with: Data(payloadBytes)) as? [String: Any],
            let app = payload["app"] as? String, let user = payload["uid"] as? String,
            let expiresAt = (payload["exp"] as? NSNumber)?.int64Value
        else { throw malformed }
        // The app claim is read before the MAC only to say why: a forged claim is refused all the same.
        guard app == appID else { throw AccessDenied("File Access Token belongs to another app") }
        guard SecureBytes.constantTimeEqual(key.authenticationCode(for: parts[0]), [UInt8](signature))
        else { throw AccessDenied("File Access Token signature does not match") }
        guard now < expiresAt else { throw AccessDenied("File Access Token has expired", expiredAt: expiresAt) }
        return FileAccessClaims(
            appID: app,
            userID: user,
            issuedAt: (payload["iat"] as? NSNumber)?.int64Value ?? 0,
            expiresAt: expiresAt,
            presign: (payload["psn"] as? NSNumber)?.boolValue == true
        )
    }

    /// Whether a token says it leads to a presigned link, read without checking it (`verify` checks it
    /// before the redirect): which route answers a read.
    ///
    /// - Parameter token: the token, percent-decoded.
    /// - Returns: true when its payload has `"psn": true`.
    public static func claimsPresign(_ token: String) -> Bool {
        guard token.utf8.count <= maximumLength, let dot = token.utf8.firstIndex(of: UInt8(ascii: ".")),
            let bytes = Base64.decode(token[..<dot], .standard),
            // Every media read with `?fat=` asks, and most tokens claim nothing: only a payload that spells
            // `psn` out, or holds a JSON escape that could spell it, is parsed. Parsing every one was a ninth
            // of such a read's CPU.
            bytes.contains(UInt8(ascii: "\\")) || Self.contains(bytes, Self.presignName),
            let payload = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        else { return false }
        return (payload["psn"] as? NSNumber)?.boolValue == true
    }

    private static let presignName = Array("psn".utf8)

    /// Whether `bytes` holds `part` anywhere.
    private static func contains(_ bytes: [UInt8], _ part: [UInt8]) -> Bool {
        guard bytes.count >= part.count else { return false }
        return (0...(bytes.count - part.count)).contains { start in
            bytes[start..<(start + part.count)].elementsEqual(part)
        }
    }
}
