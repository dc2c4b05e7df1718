import Foundation
import Hummingbird
import MockCDNCore

/// CometChat-style secure media: `GET /v1/apps/{app}/settings`, `POST /v1/apps/{app}/fat` (mint a File
/// Access Token), `POST /{app}/media` (upload with a FAT) and `POST /v1/apps/{app}/presign` (a SigV4
/// presigned URL for a media URL). Errors use CometChat's `{"error":{"code","message"}}` envelope.
struct SecureMediaController {
    let store: any ObjectStore
    let clock: MockClock
    let links: LinkSigner
    let uploads: UploadReceiver
    let auth: CometChatAuthenticator

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("v1/apps/:app/settings") { request, context in
            try await self.settings(request, context: context)
        }
        router.post("v1/apps/:app/fat") { request, context in try await self.mintFAT(request, context: context) }
        router.post(":app/media") { request, context in try await self.upload(request, context: context) }
        router.post("v1/apps/:app/presign") { request, context in try await self.presign(request, context: context) }
    }

    // MARK: - Settings

    struct SettingsResponse: ResponseEncodable {
        let securedMediaHost: String
        let fatParameterName: String
        let fatHeaderName: String
        let presignedURLTTL: Int64
        let mediaURLAccess: String
        let mediaURLTTL: Int64
        let uploadURLTTL: Int64
        let uploadStallTimeout: Int64
        let fileSizeMax: Int
        let fileCountMax: Int

        enum CodingKeys: String, CodingKey {
            case securedMediaHost = "SECURED_MEDIA_HOST"
            case fatParameterName = "FAT_PARAMETER_NAME"
            case fatHeaderName = "FAT_HEADER_NAME"
            case presignedURLTTL = "PRESIGNED_URL_TTL"
            case mediaURLAccess = "MEDIA_URL_ACCESS"
            case mediaURLTTL = "MEDIA_URL_TTL"
            case uploadURLTTL = "UPLOAD_URL_TTL"
            case uploadStallTimeout = "UPLOAD_STALL_TIMEOUT"
            case fileSizeMax = "FILE_SIZE_MAX"
            case fileCountMax = "FILE_COUNT_MAX"
        }
    }

    func settings(_ request: Request, context: AppRequestContext) async throws -> SettingsResponse {
        let app = try self.auth.app(context)
        let files = try await self.uploads.state.uploadConfig(.file, app: app)
        return SettingsResponse(
            securedMediaHost: HostAuthority.of(self.links.base(for: request)),
            fatParameterName: FATCredential.parameterName,
            fatHeaderName: FATCredential.headerName.canonicalName,
            presignedURLTTL: app.configuration.presignTTL,
            mediaURLAccess: app.configuration.mediaURLAccess.rawValue,
            mediaURLTTL: app.configuration.presignedURLTTL,
            uploadURLTTL: app.configuration.uploadURLTTL,
            uploadStallTimeout: app.configuration.uploadStallTimeout,
            fileSizeMax: UploadPolicy.sizeLimit(files),
            fileCountMax: AppConfiguration.maximumUploadFiles
        )
    }

    // MARK: - FAT

    struct FATRequest: Decodable {
        let userID: String?
        let ttl: Int64?

        enum CodingKeys: String, CodingKey {
            case ttl
            case userID = "user_id"
        }
    }

    struct FATResponse: ResponseEncodable {
        let fat: String
        let userID: String
        let expiresIn: Int64
        let expiresAt: Int64
    }

    /// Mints a FAT. A server JWT may mint one for any user; a user JWT only for its own user (as a
    /// CometChat login does).
    func mintFAT(_ request: Request, context: AppRequestContext) async throws -> Response {
        let app = try self.auth.app(context)
        if let apiKey = context.query(of: request).first("api_key"), apiKey != app.configuration.apiKey {
            throw CometChatError.unauthorized("api_key does not belong to app \(app.id)")
        }
        guard let token = request.authorization?.credential else {
            throw CometChatError.unauthorized("Authorization header with a JWT signed by the app's secret is missing")
        }
        let claims = try self.auth.claims(of: token, app: app)
        return try await CredentialNote.answer(authorisedBy: .jwt, request: request, context: context) {
            try await self.mint(request, app: app, claims: claims)
        }
    }

    /// The FAT a verified JWT asked for.
    private func mint(_ request: Request, app: MediaApp, claims: JWTClaims) async throws -> FATResponse {
        let body = try await request.decodeJSONBody(FATRequest.self)
        guard let user = body.userID ?? claims.userID, !user.isEmpty, user.count <= 255 else {
            throw CometChatError.badRequest("user_id is required: 1 to 255 characters")
        }
        guard claims.isServer || claims.userID == user else {
            throw CometChatError.notAllowed("a user token may only mint a FAT for its own user")
        }
        let ttl = body.ttl ?? FileAccessToken.defaultTTL
        guard (1...FileAccessToken.maximumTTL).contains(ttl) else {
            throw CometChatError.badRequest("ttl must be 1...\(FileAccessToken.maximumTTL) seconds")
        }
        let now = self.clock.unixSeconds
        let claimsOut = FileAccessClaims(appID: app.id, userID: user, issuedAt: now, expiresAt: now + ttl)
        return FATResponse(
            fat: FileAccessToken.issue(claimsOut, key: app.secretKey),
            userID: user,
            expiresIn: ttl,
            expiresAt: now + ttl
        )
    }

    // MARK: - Media upload

    struct MediaResponse: ResponseEncodable {
        let url: String
    }

    /// Stores the `file` part under `{app}/media/{uuid}/{name}` with the app's file policy.
    func upload(_ request: Request, context: AppRequestContext) async throws -> Response {
        let app = try self.auth.app(context)
        let (user, source) = try self.auth.fatUser(request, context: context, app: app)
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            try await self.store(request, app: app, user: user)
        }
    }

    private func store(_ request: Request, app: MediaApp, user: String) async throws -> EditedResponse<MediaResponse> {
        let received = try await self.uploads.receive(
            request,
            app: app,
            kind: .file,
            folder: "media",
            fieldNames: [],
            owner: { _ in user },
            extras: [:]
        )
        return EditedResponse(
            status: .created,
            response: MediaResponse(
                url: try self.links.mediaURL(
                    app: app,
                    key: received.key,
                    now: self.clock.unixSeconds,
                    base: self.links.base(for: request)
                )
            )
        )
    }

    // MARK: - Presign

    struct PresignRequest: Decodable {
        let url: String?
    }

    struct PresignResponse: ResponseEncodable {
        let url: String
        let expiresIn: Int64
        let expiresAt: Int64
    }

    /// A SigV4 presigned GET for a media URL of the app (any object of the app, any folder), valid for the
    /// app's presign lifetime. The URL's own query (an old `fat`, an old signature) is ignored.
    func presign(_ request: Request, context: AppRequestContext) async throws -> Response {
        let app = try self.auth.app(context)
        let (_, source) = try self.auth.fatUser(request, context: context, app: app)
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            try await self.presignedURL(request, app: app)
        }
    }

    private func presignedURL(_ request: Request, app: MediaApp) async throws -> PresignResponse {
        let body = try await request.decodeJSONBody(PresignRequest.self)
        guard let text = body.url, !text.isEmpty else { throw CometChatError.invalidURL("url is required") }
        guard let url = MediaURL(text) else {
            throw CometChatError.invalidURL("url must be an absolute http or https URL")
        }
        let base = self.links.base(for: request)
        let mediaHosts = [HostAuthority.of(base), HostAuthority.of(self.links.baseURL)]
        guard mediaHosts.contains(url.authority) else {
            throw CometChatError.invalidURL("url is not on this media host (\(mediaHosts[0]))")
        }
        guard let key = url.key(in: app.id) else {
            throw CometChatError.invalidURL("url is not a media URL of app \(app.id)")
        }
        guard try await self.store.metadata(for: key) != nil else {
            throw CometChatError.notFound("no media at url")
        }
        let now = self.clock.unixSeconds
        return PresignResponse(
            url: self.links.presignedURL(app: app, key: key, now: now, base: base),
            expiresIn: app.configuration.presignTTL,
            expiresAt: now + app.configuration.presignTTL
        )
    }
}
