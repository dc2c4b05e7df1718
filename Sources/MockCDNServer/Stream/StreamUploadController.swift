import Foundation
import Hummingbird
import MockCDNCore
import NIOCore

/// Stream's upload and delete endpoints:
/// `/channels/{type}/{id}/image|file`, `/api/v2/chat/channels/{type}/{id}/image|file`,
/// `/api/v2/uploads/image|file`.
struct StreamUploadController {
    let auth: StreamAuthenticator
    let links: LinkSigner
    let variants: VariantCache
    let uploads: UploadReceiver
    let posters: VideoPosters

    /// The non-file parts MockCDN reads.
    static let fieldNames: Set<String> = ["user", "upload_sizes"]

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        for kind in [UploadPolicy.Kind.image, .file] {
            for prefix in ["channels", "api/v2/chat/channels"] {
                let path = RouterPath("\(prefix)/:type/:id/\(kind.rawValue)")
                router.post(path) { request, context in
                    let channel = try StreamRequest.channel(context)
                    return try await self.auth.answer(request, context: context) {
                        try await self.upload(request, context: context, caller: $0, kind: kind, channel: channel)
                    }
                }
                router.delete(path) { request, context in
                    try await self.auth.answer(request, context: context) {
                        try await self.delete(request, context: context, caller: $0, kind: kind)
                    }
                }
            }
            router.post(RouterPath("api/v2/uploads/\(kind.rawValue)")) { request, context in
                try await self.auth.answer(request, context: context) {
                    try await self.upload(request, context: context, caller: $0, kind: kind, channel: nil)
                }
            }
            router.delete(RouterPath("api/v2/uploads/\(kind.rawValue)")) { request, context in
                try await self.auth.answer(request, context: context) {
                    try await self.delete(request, context: context, caller: $0, kind: kind)
                }
            }
        }
    }

    // MARK: - Upload

    struct UploadResponse: ResponseEncodable {
        let file: String
        let thumbURL: String?
        let uploadSizes: [UploadSize]?
        let duration: String
    }

    /// An `upload_sizes` entry: sent as `{width,height,resize,crop}`, answered with its `url` too.
    struct UploadSize: Codable {
        let width: Int?
        let height: Int?
        let resize: String?
        let crop: String?
        var url: String?
    }

    struct UserField: Decodable {
        let id: String
    }

    func upload(
        _ request: Request,
        context: AppRequestContext,
        caller: StreamCaller,
        kind: UploadPolicy.Kind,
        channel: String?
    ) async throws -> EditedResponse<UploadResponse> {
        let app = caller.app
        let receiver = self.uploads
        // A refusal (UploadFailure) reaches the group's envelope middleware as it is.
        let received = try await receiver.receive(
            request,
            app: app,
            kind: kind,
            folder: kind == .image ? "images" : "attachments",
            fieldNames: Self.fieldNames,
            // The `user` part, when it comes before the file (as Stream's SDKs send it), names the owner.
            owner: { fields in
                caller.user(
                    named: try fields["user"].map { try Self.decode(UserField.self, from: $0, field: "user").id }
                )
            },
            extras: channel.map { ["channel": $0] } ?? [:]
        )
        do {
            let fields = received.fields
            let named = try fields["user"].map { try Self.decode(UserField.self, from: $0, field: "user").id }
            // A server token may name the uploader in `user`, or leave the upload without an owner (Stream's
            // server SDKs send no `user` unless asked); only a server token may then delete it.
            let user = caller.user(named: named)
            let requestedSizes = try fields["upload_sizes"].map {
                try Self.decode([UploadSize].self, from: $0, field: "upload_sizes")
            }
            let sizeTransforms = try (requestedSizes ?? []).enumerated().map(Self.transform)
            if received.object.owner != user {
                try await self.uploads.store.updateMetadata(received.key) { $0.owner = user }
            }
            if let channel, let user { try await self.uploads.state.addMembers([user], app: app, channel: channel) }

            let now = self.uploads.clock.unixSeconds
            let base = self.links.base(for: request)
            let link = try self.links.signedURL(app: app, object: received.object, now: now, base: base)
            // Stream answers a server-made thumbnail for videos; an undecodable video still uploads, without.
            let poster = await self.posters.storePoster(for: received.object, key: received.key)
            let thumbnailOf =
                try poster.map { try self.links.signedURL(app: app, object: $0, now: now, base: base) }
                ?? (kind == .image ? link : nil)
            let uploadSizes = requestedSizes.map { sizes in
                zip(sizes, sizeTransforms).map { size, transform in
                    var answered = size
                    answered.url = link + "&" + transform.normalized
                    return answered
                }
            }
            let response = UploadResponse(
                file: link,
                thumbURL: thumbnailOf.map { $0 + "&" + ImageTransform.thumbnail.normalized },
                uploadSizes: uploadSizes,
                duration: context.duration
            )
            return EditedResponse(status: .created, response: response)
        } catch {
            if let current = try? await self.uploads.store.metadata(for: received.key) {
                await self.posters.deletePoster(of: current)
            }
            await receiver.discard(received.object)
            throw error
        }
    }

    /// Validates one `upload_sizes` entry as the transform its link will ask for.
    static func transform(_ entry: (offset: Int, element: UploadSize)) throws -> ImageTransform {
        let size = entry.element
        guard size.width != nil || size.height != nil else {
            throw StreamAPIError.input("upload_sizes[\(entry.offset)] needs a width, a height or both")
        }
        return try FieldRefusal.naming("upload_sizes[\(entry.offset)]") {
            try ImageTransform(
                width: size.width.map(String.init),
                height: size.height.map(String.init),
                resize: size.resize,
                crop: size.crop,
                names: ("width", "height")
            )
        }
    }

    private static func decode<Value: Decodable>(
        _ type: Value.Type,
        from buffer: ByteBuffer,
        field: String
    ) throws -> Value {
        try JSONBodyError.decode(type, from: Data(buffer.readableBytesView), naming: "\(field) field")
    }

    // MARK: - Delete

    struct DeleteBody: Decodable {
        let url: String
    }

    func delete(
        _ request: Request,
        context: AppRequestContext,
        caller: StreamCaller,
        kind: UploadPolicy.Kind
    ) async throws -> DurationResponse {
        var url = context.query(of: request).first("url")
        if url == nil, request.uri.path.hasPrefix("/api/v2/") {
            url = try await request.decodeJSONBody(DeleteBody.self).url
        }
        guard let url, !url.isEmpty else { throw StreamAPIError.input("url is a required parameter") }
        guard let path = URLComponents(string: url)?.percentEncodedPath,
            let key = try? ObjectKey(app: caller.app.id, mediaPath: path)
        else {
            throw StreamAPIError.input("url is not a CDN URL of this app")
        }
        guard let metadata = try await self.uploads.store.metadata(for: key) else {
            throw StreamAPIError.notFound("no file or image at url")
        }
        guard caller.claims.isServer || metadata.owner == caller.claims.userID else {
            throw StreamAPIError.notAllowed("only the uploader or a server-side token may delete this file")
        }
        try await ObjectRemover(
            store: self.uploads.store,
            events: self.uploads.events,
            variants: self.variants,
            posters: self.posters
        )
        .remove(key, metadata: metadata)
        return DurationResponse(duration: context.duration)
    }
}
