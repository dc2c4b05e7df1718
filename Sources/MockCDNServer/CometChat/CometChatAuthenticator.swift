import Hummingbird
import MockCDNCore

/// Who calls a CometChat-style route of an app: a File Access Token's user, or (where a route allows it) a
/// JWT signed with the app's secret, as a CometChat login or the app's server holds one.
struct CometChatAuthenticator: Sendable {
    let apps: AppRegistry
    let clock: MockClock

    /// The app the route's `:app` names.
    ///
    /// - Throws: 404 `ERR_APP_NOT_FOUND`.
    func app(_ context: AppRequestContext) throws(CometChatError) -> MediaApp {
        let appID = (try? context.parameters.require("app")) ?? ""
        guard let app = self.apps.configuredApp(id: appID) else { throw .appNotFound(appID) }
        return app
    }

    /// The user of the request's FAT (header or `fat` query parameter) for `app`.
    ///
    /// - Throws: `FATCredential.Conflict` (400) for conflicting FATs, 401 `ERR_NOT_LOGGED_IN` for none or a
    ///   bad one.
    func fatUser(
        _ request: Request,
        context: AppRequestContext,
        app: MediaApp
    ) throws -> (user: String, source: CredentialSource) {
        guard let credential = try FATCredential.find(in: request, query: context.query(of: request)) else {
            throw CometChatError.notLoggedIn("a File Access Token is required (fat header or fat query parameter)")
        }
        return (try self.user(of: credential, app: app), credential.source)
    }

    /// The caller by FAT when the request carries one (an empty `fat` header, which CometChat's SDK sends
    /// when nobody is logged in, is none), else by `Authorization: Bearer` JWT: its user, or nil for a server
    /// token.
    ///
    /// - Throws: what `fatUser` throws for a FAT; `JWTError` (401 `ERR_UNAUTHORIZED`) for a JWT the app's
    ///   secret did not sign or that has expired; 401 `ERR_NOT_LOGGED_IN` when there is neither credential.
    func fatOrJWTUser(
        _ request: Request,
        context: AppRequestContext,
        app: MediaApp
    ) throws -> (user: String?, source: CredentialSource) {
        if let credential = try FATCredential.find(in: request, query: context.query(of: request)) {
            return (try self.user(of: credential, app: app), credential.source)
        }
        guard let token = request.authorization?.credential else {
            throw CometChatError.notLoggedIn(
                "a File Access Token (fat header or query) or a JWT of the app is required"
            )
        }
        let claims = try self.claims(of: token, app: app)
        return (claims.isServer ? nil : claims.userID, .jwt)
    }

    /// The claims of a JWT that the app's secret signed and the clock still accepts: the one JWT check of
    /// the CometChat routes (upload URLs, FAT minting).
    ///
    /// - Throws: `JWTError`, which CometChat's envelope answers 401 `ERR_UNAUTHORIZED`.
    func claims(of token: String, app: MediaApp) throws(JWTError) -> JWTClaims {
        try JWT.verify(token, key: app.secretKey, now: self.clock.unixSeconds)
    }

    /// The user a FAT was minted for, when it is valid for `app` by the clock.
    ///
    /// - Throws: `AccessDenied`, which CometChat's envelope answers 401 `ERR_NOT_LOGGED_IN` whichever rule
    ///   failed (on a media read the same refusal is S3's `AccessDenied`).
    private func user(of credential: FATCredential, app: MediaApp) throws(AccessDenied) -> String {
        try FileAccessToken.verify(credential.token, appID: app.id, key: app.secretKey, now: self.clock.unixSeconds)
            .userID
    }
}
