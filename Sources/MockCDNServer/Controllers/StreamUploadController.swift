import Foundation
import Hummingbird
import MockCDNCore
import NIOCore

/// Stream's upload and delete endpoints:
/// `/channels/{type}/{id}/image|file`, `/api/v2/chat/channels/{type}/{id}/image|file`,
/// `/api/v2/uploads/image|file`.
struct StreamUploadController {
    let services: ServerServices

    /// Multipart framing allowed on top of the file size before Content-Length alone earns a 413.
    static let multipartAllowance = 64 * 1024
    /// The non-file parts MockCDN reads.
    static let fieldNames: Set<String> = ["user", "upload_sizes"]
    /// The most bytes read from a non-file part (`user`, `upload_sizes`).
    static let maximumFieldBytes = 64 * 1024

    func addRoutes(to router: Router<AppRequestContext>) {
        for kind in [UploadPolicy.Kind.image, .file] {
            for prefix in ["channels", "api/v2/chat/channels"] {
                let path = RouterPath("\(prefix)/:type/:id/\(kind.rawValue)")
                router.post(path) { request, context in
                    try await self.upload(request, context: context, kind: kind, channel: try Self.channel(context))
                }
                router.delete(path) { request, context in
                    try await self.delete(request, context: context, kind: kind)
                }
            }
            router.post(RouterPath("api/v2/uploads/\(kind.rawValue)")) { request, context in
                try await self.upload(request, context: context, kind: kind, channel: nil)
            }
            router.delete(RouterPath("api/v2/uploads/\(kind.rawValue)")) { request, context in
                try await self.delete(request, context: context, kind: kind)
            }
        }
    }

    /// `type:id`, as Stream names a channel (its cid).
    static func channel(_ context: AppRequestContext) throws -> String {
        let type = try context.parameters.require("type")
        let id = try context.parameters.require("id")
        guard type.count <= 64, id.count <= 64, !type.contains(":"), !id.contains(":") else {
            throw StreamAPIError.input("channel type and id must be at most 64 characters without ':'")
        }
        return type + ":" + id
    }

    // MARK: - Upload

    struct UploadResponse: ResponseEncodable {
        let file: String
        let thumbURL: String?
        let uploadSizes: [UploadSize]?
        let duration: String

        enum CodingKeys: String, CodingKey {
            case file, duration
            case thumbURL = "thumb_url"
            case uploadSizes = "upload_sizes"
        }
    }

    struct UploadSize: Codable {
        let width: Int?
        let height: Int?
        let resize: String?
        let crop: String?
    }

    struct UserField: Decodable {
        let id: String
    }

    func upload(
        _ request: Request,
        context: AppRequestContext,
        kind: UploadPolicy.Kind,
        channel: String?
    ) async throws -> EditedResponse<UploadResponse> {
        let caller = try self.services.streamAuth.authenticate(request)
        let app = caller.app
        let config = app.uploadConfig(kind)
        let limit = UploadPolicy.sizeLimit(config)
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit + Self.multipartAllowance {
            throw StreamAPIError.tooLarge(limit: limit)
        }
        guard let boundary = MultipartReader.boundary(contentType: request.headers[.contentType]) else {
            throw StreamAPIError.input("Content-Type must be multipart/form-data with a boundary")
        }

        let reader = MultipartReader(
            body: request.body,
            boundary: boundary,
            maximumBytes: limit + Self.multipartAllowance
        )
        var stored: ObjectMetadata?
        var fields: [String: ByteBuffer] = [:]
        do {
            var headers = MultipartPartHeaders()
            while let event = try await reader.next() {
                let first: ByteBuffer?
                switch event {
                case .header(let name, let value):
                    headers.add(name: name, value: value)
                    continue
                case .body(let buffer): first = buffer
                case .partEnd: first = nil
                }
                let part = headers
                headers = MultipartPartHeaders()
                var body = MultipartPartBody(reader: reader, first: first).makeAsyncIterator()
                if first == nil { body.done = true }
                if part.name == "file" {
                    guard stored == nil else { throw StreamAPIError.input("only one file part is allowed") }
                    stored = try await self.store(
                        part: part,
                        body: body,
                        app: app,
                        kind: kind,
                        channel: channel,
                        owner: caller.claims.userID,
                        limit: limit
                    )
                } else if let name = part.name, Self.fieldNames.contains(name) {
                    fields[name] = try await Self.collectField(&body, name: name)
                } else {
                    // Parts Stream does not define are read past, not kept.
                    while try await body.next() != nil {}
                }
            }
            guard let object = stored else { throw StreamAPIError.input("file is a required field") }

            let named = try fields["user"].map { try Self.decode(UserField.self, from: $0, field: "user").id }
            guard let user = caller.user(named: named) else {
                throw StreamAPIError.input("user is a required field when uploading with a server token")
            }
            let uploadSizes = try fields["upload_sizes"].map {
                try Self.decode([UploadSize].self, from: $0, field: "upload_sizes")
            }
            let key = try ObjectKey(object.key)
            if object.owner != user {
                try await self.services.store.updateMetadata(key) { $0.owner = user }
            }
            if let channel { self.services.channels.add([user], app: app.id, channel: channel) }

            let now = self.services.clock.unixSeconds
            let link = try self.services.links.signedURL(app: app, key: key, now: now)
            let response = UploadResponse(
                file: link,
                thumbURL: kind == .image ? link + "&w=150&h=150&resize=clip" : nil,
                uploadSizes: uploadSizes,
                duration: context.duration
            )
            return EditedResponse(status: .created, response: response)
        } catch {
            if let stored, let key = try? ObjectKey(stored.key) {
                _ = try? await self.services.store.delete(key)
            }
            throw Self.streamError(error, limit: limit)
        }
    }

    /// Sniffs the part's first bytes, applies the policy, then streams the rest into the store.
    private func store(
        part: MultipartPartHeaders,
        body: MultipartPartBody.AsyncIterator,
        app: MediaApp,
        kind: UploadPolicy.Kind,
        channel: String?,
        owner: String?,
        limit: Int
    ) async throws -> ObjectMetadata {
        var body = body
        var head = ByteBuffer()
        while head.readableBytes < MediaSniffer.prefixLength, var chunk = try await body.next() {
            head.writeBuffer(&chunk)
        }
        guard head.readableBytes > 0 else { throw StreamAPIError.input("file is empty") }
        let fileName = UploadPolicy.sanitizedFileName(part.fileName ?? "file")
        let contentType: String
        do {
            contentType = try UploadPolicy.contentType(
                kind: kind,
                fileName: part.fileName ?? fileName,
                declaredType: part.contentType,
                prefix: Array(head.readableBytesView.prefix(MediaSniffer.prefixLength)),
                config: app.uploadConfig(kind)
            )
        } catch {
            throw StreamAPIError.input(error.message)
        }
        let folder = kind == .image ? "images" : "attachments"
        let key = try ObjectKey("\(app.id)/\(folder)/\(UUID().uuidString.lowercased())/\(fileName)")
        var extras = ["original_name": String((part.fileName ?? fileName).prefix(256))]
        if let channel { extras["channel"] = channel }
        extras["uploaded_at"] = String(self.services.clock.now.timeIntervalSince1970)
        return try await self.services.store.put(
            key,
            body: ResumedPartBody(head: head, rest: body),
            attributes: ObjectAttributes(
                contentType: contentType,
                owner: owner,
                extras: extras,
                created: self.services.clock.now
            ),
            maxBytes: limit
        )
    }

    private static func collectField(
        _ body: inout MultipartPartBody.AsyncIterator,
        name: String
    ) async throws -> ByteBuffer {
        var value = ByteBuffer()
        while var chunk = try await body.next() {
            guard value.readableBytes + chunk.readableBytes <= maximumFieldBytes else {
                throw StreamAPIError.input("\(name) field is larger than \(maximumFieldBytes) bytes")
            }
            value.writeBuffer(&chunk)
        }
        return value
    }

    private static func decode<Value: Decodable>(
        _ type: Value.Type,
        from buffer: ByteBuffer,
        field: String
    ) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: Data(buffer.readableBytesView))
        } catch {
            throw StreamAPIError.input("\(field) field is not valid JSON of the expected shape")
        }
    }

    private static func streamError(_ error: any Error, limit: Int) -> any Error {
        switch error {
        case let error as MockCDNError where error == .objectTooLarge: StreamAPIError.tooLarge(limit: limit)
        case is MultipartBodyTooLarge: StreamAPIError.tooLarge(limit: limit)
        case let error as MockCDNError where error == .invalidObjectKey: StreamAPIError.input(error.detail)
        default: error
        }
    }

    // MARK: - Delete

    struct DurationResponse: ResponseEncodable {
        let duration: String
    }

    struct DeleteBody: Decodable {
        let url: String
    }

    func delete(
        _ request: Request,
        context: AppRequestContext,
        kind: UploadPolicy.Kind
    ) async throws -> DurationResponse {
        let caller = try self.services.streamAuth.authenticate(request)
        var url = request.uri.queryParameters["url"].map(String.init)
        if url == nil, request.uri.path.hasPrefix("/api/v2/") {
            url = try await StreamAppController.decodeJSON(DeleteBody.self, from: request).url
        }
        guard let url, !url.isEmpty else { throw StreamAPIError.input("url is a required parameter") }
        guard let path = URLComponents(string: url)?.percentEncodedPath,
            let key = try? ObjectKey(app: caller.app.id, percentEncodedPath: path)
        else {
            throw StreamAPIError.input("url is not a CDN URL of this app")
        }
        guard let metadata = try await self.services.store.metadata(for: key) else {
            throw StreamAPIError.notFound("no file or image at url")
        }
        guard caller.claims.isServer || metadata.owner == caller.claims.userID else {
            throw StreamAPIError.notAllowed("only the uploader or a server-side token may delete this file")
        }
        try await self.services.store.delete(key)
        return DurationResponse(duration: context.duration)
    }

}
