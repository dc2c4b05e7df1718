import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore

/// CometChat's token-based files access on MockCDN's media URLs: a media URL a webhook carries answers 401
/// when fetched as it is; fetched with the app's `appId` and `apiKey` headers it answers
/// `{"data":{"url":"...?fat=TOKEN"}}`, and that URL redirects to a presigned link that lives 5 minutes (the
/// app's presign lifetime). Both are reads of `GET /{app}/{key}`, which the CDN hands over here
/// (`QueryHandoff`).
struct FilesHost {
    let apps: AppRegistry
    let clock: MockClock
    let links: LinkSigner
    let store: any ObjectStore

    /// The app credential headers CometChat's files host reads.
    static let appIDHeader = HTTPField.Name("appId")!
    static let apiKeyHeader = HTTPField.Name("apiKey")!
    /// How long a handed-out `?fat=` URL's token lives: as long as the link it leads to.
    static let tokenTTL: Int64 = 300

    /// The two handoffs: the credential exchange, then the redirect.
    var handoffs: [QueryHandoff] {
        [
            QueryHandoff(
                matching: { headers, _ in headers[Self.appIDHeader] != nil && headers[Self.apiKeyHeader] != nil },
                answer: { request, context in
                    try await ErrorEnvelopeMiddleware<CometChatError>().handle(request, context: context) {
                        try await self.exchange($0, context: $1).response(from: $0, context: $1)
                    }
                }
            ),
            QueryHandoff(
                matching: { _, query in
                    query.values(FATCredential.parameterName).contains { FileAccessToken.claimsPresign($0) }
                },
                answer: { request, context in
                    try await ErrorEnvelopeMiddleware<CometChatError>().handle(request, context: context) {
                        try await self.redirect($0, context: $1)
                    }
                }
            ),
        ]
    }

    struct Exchanged: ResponseEncodable {
        struct Data: Encodable {
            let url: String
        }

        let data: Data
    }

    /// The media URL with a `fat` that leads to a presigned link, for a request carrying the app's id and
    /// API key.
    func exchange(_ request: Request, context: AppRequestContext) async throws -> Exchanged {
        let (app, key) = try await self.object(request, context: context)
        guard request.headers[Self.appIDHeader] == app.id,
            request.headers[Self.apiKeyHeader] == app.configuration.apiKey
        else {
            throw CometChatError.unauthorized("the appId and apiKey headers do not name app \(app.id) and its API key")
        }
        let now = self.clock.unixSeconds
        let token = FileAccessToken.issue(
            FileAccessClaims(
                appID: app.id,
                userID: "app:" + app.id,
                issuedAt: now,
                expiresAt: now + Self.tokenTTL,
                presign: true
            ),
            key: app.secretKey
        )
        let url = self.links.objectURL(key, base: self.links.base(for: request))
        return Exchanged(
            data: .init(url: url + "?" + FATCredential.parameterName + "=" + PercentEncoding.encode(token))
        )
    }

    /// A 302 to a presigned link of the object, for a valid `?fat=` a files-host exchange handed out.
    func redirect(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (app, key) = try await self.object(request, context: context)
        let query = context.query(of: request)
        guard let token = query.values(FATCredential.parameterName).first(where: FileAccessToken.claimsPresign) else {
            throw CometChatError.notLoggedIn("a File Access Token is required")
        }
        let claims = try FileAccessToken.verify(token, appID: app.id, key: app.secretKey, now: self.clock.unixSeconds)
        guard claims.presign else { throw CometChatError.notLoggedIn("the File Access Token does not lead to a link") }
        let location = self.links.presignedURL(
            app: app,
            key: key,
            now: self.clock.unixSeconds,
            base: self.links.base(for: request)
        )
        return try await CredentialNote.answer(authorisedBy: .fatQuery, request: request, context: context) {
            Response(status: .found, headers: [.location: location, .contentLength: "0"])
        }
    }

    /// The path's app and stored key; 404 in CometChat's envelope when either is unknown.
    private func object(_ request: Request, context: AppRequestContext) async throws -> (MediaApp, ObjectKey) {
        let appID = try context.parameters.require("app")
        guard let app = self.apps.configuredApp(id: appID) else { throw CometChatError.appNotFound(appID) }
        guard let key = try? ObjectKey(app: appID, mediaPath: request.uri.path),
            try await self.store.metadata(for: key) != nil
        else { throw CometChatError.notFound("no media at this URL") }
        return (app, key)
    }
}
