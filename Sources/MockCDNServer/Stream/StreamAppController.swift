import Foundation
import Hummingbird
import MockCDNCore
import NIOCore
import NIOPosix

/// Stream app settings (`GET|PATCH /app`: upload settings and webhook settings), channel members and the
/// channel's upload listing.
struct StreamAppController {
    let auth: StreamAuthenticator
    let store: any ObjectStore
    let clock: MockClock
    let state: any AppState
    let links: LinkSigner
    /// Where the webhook settings live (in the process, as the notification targets do).
    let hooks: StreamWebhooks

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        // v1 (stream-chat) and v2 (getstream) spell the same settings route.
        for path in ["app", "api/v2/app"] {
            router.get(RouterPath(path)) { request, context in
                try await self.auth.answer(request, context: context) {
                    try await self.settings(context: context, caller: $0)
                }
            }
            router.patch(RouterPath(path)) { request, context in
                try await self.auth.answer(request, context: context) {
                    try await self.updateSettings(request, context: context, caller: $0)
                }
            }
        }
        router.post("channels/:type/:id/members") { request, context in
            try await self.auth.answer(request, context: context) {
                try await self.addMembers(request, context: context, caller: $0)
            }
        }
        router.get("channels/:type/:id/uploads") { request, context in
            try await self.auth.answer(request, context: context) {
                try await self.uploads(request, context: context, caller: $0)
            }
        }
    }

    // MARK: - Settings

    struct AppSettings: Decodable {
        var fileUploadConfig: UploadConfig?
        var imageUploadConfig: UploadConfig?
        /// The webhook members (`webhook_url`, `webhook_events`, `event_hooks`,
        /// `enable_hook_payload_compression`), decoded from the same body.
        var webhooks: StreamWebhookSettings

        enum CodingKeys: String, CodingKey {
            case fileUploadConfig = "file_upload_config"
            case imageUploadConfig = "image_upload_config"
            case webhookCompression = "webhook_compression_algorithm"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.fileUploadConfig = try container.decodeIfPresent(UploadConfig.self, forKey: .fileUploadConfig)
            self.imageUploadConfig = try container.decodeIfPresent(UploadConfig.self, forKey: .imageUploadConfig)
            self.webhooks = try StreamWebhookSettings(from: decoder)
            // The server SDKs' changelogs name the switch `webhook_compression_algorithm: "gzip"`; the OpenAPI
            // spec `enable_hook_payload_compression`. Either turns it on.
            if let algorithm = try container.decodeIfPresent(String.self, forKey: .webhookCompression) {
                self.webhooks.compression = algorithm == "gzip"
            }
        }
    }

    struct SettingsResponse: ResponseEncodable {
        struct App: Encodable {
            let name: String
            let fileUploadConfig: UploadConfig
            let imageUploadConfig: UploadConfig
            let webhookURL: String
            let webhookEvents: [String]
            let eventHooks: [StreamEventHook]
            let enableHookPayloadCompression: Bool
        }

        let app: App
        let duration: String
    }

    func settings(context: AppRequestContext, caller: StreamCaller) async throws -> SettingsResponse {
        let app = try caller.requireServer().app
        let hooks = self.hooks.settings(of: app.id)
        return SettingsResponse(
            app: .init(
                name: app.id,
                fileUploadConfig: try await self.state.uploadConfig(.file, app: app),
                imageUploadConfig: try await self.state.uploadConfig(.image, app: app),
                webhookURL: hooks.webhookURL ?? "",
                webhookEvents: hooks.webhookEvents ?? [],
                eventHooks: hooks.eventHooks ?? [],
                enableHookPayloadCompression: hooks.compression ?? false
            ),
            duration: context.duration
        )
    }

    func updateSettings(
        _ request: Request,
        context: AppRequestContext,
        caller: StreamCaller
    ) async throws -> EditedResponse<DurationResponse> {
        let app = try caller.requireServer().app
        let update = try await request.decodeJSONBody(AppSettings.self)
        for config in [update.fileUploadConfig, update.imageUploadConfig].compactMap({ $0 }) where config.sizeLimit < 0
        {
            throw StreamAPIError.input("size_limit must not be negative")
        }
        try self.hooks.update(update.webhooks, of: app.id)
        if let config = update.fileUploadConfig { try await self.state.setUploadConfig(config, for: .file, app: app) }
        if let config = update.imageUploadConfig { try await self.state.setUploadConfig(config, for: .image, app: app) }
        return EditedResponse(status: .created, response: .init(duration: context.duration))
    }

    // MARK: - Channels

    struct MembersRequest: Decodable {
        let userIDs: [String]

        enum CodingKeys: String, CodingKey {
            case userIDs = "user_ids"
        }
    }

    func addMembers(
        _ request: Request,
        context: AppRequestContext,
        caller: StreamCaller
    ) async throws -> EditedResponse<DurationResponse> {
        let app = try caller.requireServer().app
        let channel = try StreamRequest.channel(context)
        let members = try await request.decodeJSONBody(MembersRequest.self)
        guard !members.userIDs.isEmpty, members.userIDs.allSatisfy({ !$0.isEmpty && $0.count <= 255 }) else {
            throw StreamAPIError.input("user_ids must name at least one user, each at most 255 characters")
        }
        try await self.state.addMembers(members.userIDs, app: app, channel: channel)
        return EditedResponse(status: .created, response: .init(duration: context.duration))
    }

    struct UploadsResponse: ResponseEncodable {
        struct Upload: Encodable {
            let file: String
            let thumbURL: String?
            let name: String
            let mimeType: String
            let size: Int
            let userID: String?
            let createdAt: String
        }

        let uploads: [Upload]
        let duration: String
    }

    func uploads(_ request: Request, context: AppRequestContext, caller: StreamCaller) async throws -> UploadsResponse {
        let app = caller.app
        let channel = try StreamRequest.channel(context)
        if !caller.claims.isServer {
            guard let user = caller.claims.userID, try await self.state.isMember(user, app: app, channel: channel)
            else {
                throw StreamAPIError.notAllowed("user is not a member of channel \(channel)")
            }
        }
        let query = context.query(of: request)
        let limit = try Self.pageNumber(query.values("limit").first, name: "limit", range: 1...Self.maximumPageSize)
        let offset = try Self.pageNumber(query.values("offset").first, name: "offset", range: 0...Int(Int32.max))
        let now = self.clock.unixSeconds
        let objects = try await self.store.list(prefix: app.id + "/")
            .filter { $0.extras["channel"] == channel }
            .sorted {
                (Double($0.extras["uploaded_at"] ?? "") ?? 0, $0.key) < (
                    Double($1.extras["uploaded_at"] ?? "") ?? 0, $1.key
                )
            }
            .dropFirst(offset ?? 0)
            .prefix(limit ?? Self.defaultPageSize)
        var postersOf: [String: ObjectMetadata] = [:]
        for object in objects {
            if let name = object.extras["poster"], let key = try? ObjectKey(name),
                let poster = try await self.store.metadata(for: key)
            {
                postersOf[object.key] = poster
            }
        }
        let posters = postersOf
        let links = self.links
        let base = links.base(for: request)
        // RSA signing costs about a millisecond a link: a page of them is signed on the thread pool, never on
        // the event loop that serves every other request.
        let uploads = try await NIOThreadPool.singleton.runIfActive {
            let formatter = ISO8601DateFormatter()
            return try objects.map { object in
                let key = try ObjectKey(object.key)
                // Fresh signatures on every listing, as Stream re-signs links whenever messages are read.
                let link = try links.signedURL(app: app, object: object, now: now, base: base)
                let thumbnailOf =
                    try posters[object.key].map { try links.signedURL(app: app, object: $0, now: now, base: base) }
                    ?? (object.key.hasPrefix(app.id + "/images/") ? link : nil)
                return UploadsResponse.Upload(
                    file: link,
                    thumbURL: thumbnailOf.map { $0 + "&" + ImageTransform.thumbnail.normalized },
                    name: object.extras["original_name"] ?? key.rawValue.split(separator: "/").last.map(String.init)
                        ?? "",
                    mimeType: object.contentType,
                    size: object.size,
                    userID: object.owner,
                    createdAt: formatter.string(from: object.created)
                )
            }
        }
        return UploadsResponse(uploads: uploads, duration: context.duration)
    }

    /// Uploads a listing page holds unless `limit` says otherwise, and the most it may say.
    static let defaultPageSize = 100
    static let maximumPageSize = 1000

    private static func pageNumber(_ text: String?, name: String, range: ClosedRange<Int>) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw StreamAPIError.input("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
