import HTTPTypes
import Hummingbird
import MockCDNCore

/// Who is calling Stream's REST API: the app from `api_key`, the bearer from the JWT.
struct StreamCaller: Sendable {
    let app: MediaApp
    let claims: JWTClaims

    /// The user the request acts for: the token's, or for a server token the one the request names.
    func user(named: String?) -> String? {
        self.claims.isServer ? named : self.claims.userID
    }

    /// The caller, when its token is a server token.
    func requireServer() throws(StreamAPIError) -> StreamCaller {
        guard self.claims.isServer else { throw .notAllowed("this endpoint needs a server-side token") }
        return self
    }
}

/// Stream's auth: `api_key` query, `Authorization: <JWT>` (a `Bearer ` prefix is tolerated),
/// `stream-auth-type: jwt`; HS256 with the app secret; `exp`/`iat` against the clock.
struct StreamAuthenticator: Sendable {
    let apps: AppRegistry
    let clock: MockClock

    static let authType = HTTPField.Name("stream-auth-type")!

    /// Authenticates the request, then runs the route with its caller; the answer, or the route's error,
    /// notes for the journal that a JWT authorised it (`CredentialNote`).
    func answer(
        _ request: Request,
        context: AppRequestContext,
        _ route: (StreamCaller) async throws -> some ResponseGenerator
    ) async throws -> Response {
        let caller = try self.authenticate(request, query: context.query(of: request))
        return try await CredentialNote.answer(authorisedBy: .jwt, request: request, context: context) {
            try await route(caller)
        }
    }

    /// The caller the request's `api_key` and JWT name.
    ///
    /// - Throws: `StreamAPIError` code 5 for a missing or unknown `api_key` or token; `JWTError` for a token
    ///   that does not hold (Stream's envelope answers code 40 for an expired one, 5 for the rest).
    func authenticate(_ request: Request, query: QueryItems) throws -> StreamCaller {
        guard let apiKey = query.first("api_key"), !apiKey.isEmpty else {
            throw StreamAPIError.authentication("api_key query parameter is missing")
        }
        guard let app = self.apps.app(apiKey: apiKey) else { throw StreamAPIError.authentication("api_key not valid") }
        if let type = request.headers[Self.authType], type.lowercased() != "jwt" {
            throw StreamAPIError.authentication("stream-auth-type must be jwt")
        }
        guard let token = Self.bearerToken(request) else {
            throw StreamAPIError.authentication("Authorization header is missing")
        }
        return StreamCaller(app: app, claims: try JWT.verify(token, key: app.secretKey, now: self.clock.unixSeconds))
    }

    /// The JWT of the `Authorization` header, with or without a `Bearer ` prefix; nil when there is none.
    static func bearerToken(_ request: Request) -> String? {
        request.authorization?.credential
    }
}
