import Hummingbird
import MockCDNCore

/// CometChat's File Access Token as a media read credential: found in the `fat` header or query by
/// `FATCredential`, checked by `FileAccessToken.verify` (shape, app, MAC, expiry by the clock).
struct FATReadCheck: ReadCredentialCheck {
    /// A FAT is appended to signed links, as CometChat's SDKs do; it is never part of what MockCDN signs.
    var appendableParameters: Set<String> { [FATCredential.parameterName] }

    func find(in request: Request, query: QueryItems) throws -> ReadCredential? {
        guard let fat = try FATCredential.find(in: request, query: query) else { return nil }
        return ReadCredential(source: fat.source, cacheKey: ["fat", fat.token]) { app, now throws(AccessDenied) in
            let claims = try FileAccessToken.verify(fat.token, appID: app.account.id, key: app.secretKey, now: now)
            return Validity(expiresAt: claims.expiresAt)
        }
    }
}
