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
        guard let app = self.apps.app(id: appID) else { throw .appNotFound(appID) }
        return app
    }

    /// The user of the request's FAT (header or `fat` query parameter) for `app`.
    ///
    /// - Throws: 400 `ERR_BAD_REQUEST` for conflicting FATs, 401 `ERR_NOT_LOGGED_IN` for none or a bad one.
    func fatUser(
        _ request: Request,
        context: AppRequestContext,
        app: MediaApp
    ) throws(CometChatError) -> (user: String, source: CredentialSource) {
        let credential: FATCredential?
        do {
            credential = try FATCredential.find(in: request, query: context.query(of: request))
        } catch {
            throw .badRequest(error.message)
        }
        guard let credential else {
            throw .notLoggedIn("a File Access Token is required (fat header or fat query parameter)")
        }
        do {
            let user = try FileAccessToken.verify(
                credential.token,
                appID: app.id,
                key: app.secretKey,
                now: self.clock.unixSeconds
            ).userID
            return (user, credential.source)
        } catch {
            throw .notLoggedIn(error.message)
        }
    }

    /// The caller by FAT when the request carries one, else by `Authorization: Bearer` JWT: its user, or nil
    /// for a server token.
    ///
    /// - Throws: what `fatUser` throws; 401 `ERR_UNAUTHORIZED` for a JWT the app's secret did not sign or
    ///   that has expired; 401 `ERR_NOT_LOGGED_IN` when there is neither credential.
    func fatOrJWTUser(
        _ request: Request,
        context: AppRequestContext,
        app: MediaApp
    ) throws(CometChatError) -> (user: String?, source: CredentialSource) {
        let hasFAT =
            request.headers[FATCredential.headerName] != nil
            || context.query(of: request).decoded.contains { $0.name == FATCredential.parameterName }
        guard !hasFAT, let token = request.authorization?.credential else {
            let (user, source) = try self.fatUser(request, context: context, app: app)
            return (user, source)
        }
        do {
            let claims = try JWT.verify(token, key: app.secretKey, now: self.clock.unixSeconds)
            return (claims.isServer ? nil : claims.userID, .jwt)
        } catch {
            throw .unauthorized(error.message)
        }
    }
}
