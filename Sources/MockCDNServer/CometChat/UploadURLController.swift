import Foundation
import Hummingbird
import MockCDNCore

/// CometChat's presigned uploads, first step: `POST /v1/apps/{app}/uploads`, authorised by a FAT or a JWT of
/// the app, hands out for each file it names (up to 10) a URL to `PUT` the bytes to. Each URL is a SigV4
/// presigned PUT of one new key under `{app}/media/`, with the content type signed as a header and the
/// size limit and the uploader signed as parameters, valid for the app's `upload_url_ttl` (15 minutes by
/// default). `PresignedPutController` receives the PUT.
struct UploadURLController {
    let auth: CometChatAuthenticator
    let links: LinkSigner
    let state: any AppState

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("v1/apps/:app/uploads") { request, context in try await self.uploadURLs(request, context: context) }
    }

    struct UploadsRequest: Decodable {
        let files: [AnnouncedFile]?
    }

    /// A file as the client announces it before sending it.
    struct AnnouncedFile: Decodable {
        let name: String?
        let contentType: String?
        let size: Int?

        enum CodingKeys: String, CodingKey {
            case name, size
            case contentType = "content_type"
        }
    }

    struct UploadsResponse: ResponseEncodable {
        let uploads: [Upload]
    }

    /// Where and how to send one file.
    struct Upload: Encodable {
        let name: String
        let key: String
        let method: String
        let url: String
        /// Headers the PUT must carry as they are here: the content type is signed.
        let headers: [String: String]
        let maxBytes: Int
        let expiresIn: Int64
        let expiresAt: Int64
    }

    func uploadURLs(_ request: Request, context: AppRequestContext) async throws -> Response {
        let app = try self.auth.app(context)
        let (user, source) = try self.auth.fatOrJWTUser(request, context: context, app: app)
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            try await self.uploads(request, app: app, user: user)
        }
    }

    private func uploads(_ request: Request, app: MediaApp, user: String?) async throws -> UploadsResponse {
        let body = try await request.decodeJSONBody(UploadsRequest.self)
        guard let files = body.files, !files.isEmpty else {
            throw CometChatError.badRequest("files is required: a list of 1 to \(AppConfiguration.maximumUploadFiles)")
        }
        guard files.count <= AppConfiguration.maximumUploadFiles else {
            throw CometChatError.fileCountExceeded(files.count)
        }
        let config = try await self.state.uploadConfig(.file, app: app)
        let limit = UploadPolicy.sizeLimit(config)
        let now = self.auth.clock.unixSeconds
        let base = self.links.base(for: request)
        var uploads: [Upload] = []
        for (index, file) in files.enumerated() {
            let field = "files[\(index)]"
            guard let name = file.name, (1...255).contains(name.count) else {
                throw CometChatError.invalidFileObject("\(field).name is required: 1 to 255 characters")
            }
            guard let declared = file.contentType, declared.utf8.allSatisfy({ (0x20...0x7e).contains($0) }),
                let essence = MediaType.essence(declared)
            else {
                throw CometChatError.invalidFileObject("\(field).content_type is required: a media type, in ASCII")
            }
            guard let size = file.size, size >= 1 else {
                throw CometChatError.invalidFileObject("\(field).size is required: the file's bytes, at least 1")
            }
            guard size <= limit else { throw CometChatError.tooLarge(limit: limit) }
            let fileName = UploadPolicy.sanitizedFileName(name)
            try FieldRefusal.naming(field) {
                try UploadPolicy.checkAnnounced(fileName: fileName, contentType: essence, config: config)
            }
            let key = try ObjectKey("\(app.id)/media/\(UUID().uuidString.lowercased())/\(fileName)")
            uploads.append(
                Upload(
                    name: fileName,
                    key: key.rawValue,
                    method: "PUT",
                    url: self.links.uploadURL(
                        app: app,
                        key: key,
                        contentType: declared,
                        maximumBytes: size,
                        owner: user,
                        now: now,
                        base: base
                    ),
                    headers: ["Content-Type": declared],
                    maxBytes: size,
                    expiresIn: app.configuration.uploadURLTTL,
                    expiresAt: now + app.configuration.uploadURLTTL
                )
            )
        }
        return UploadsResponse(uploads: uploads)
    }
}
