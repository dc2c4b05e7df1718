import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// CometChat's uploads: a file sent with the FAT (`POST /{app}/media`), or upload URLs asked for first
/// (`POST /v1/apps/{app}/uploads`) and then written with a presigned `PUT` (``PresignedUploads/put(_:to:)``).
///
/// Failures are ``MockCDNClientError``s: `.notLoggedIn` without a credential or when the server refuses it
/// (401), `.tooLarge` for 413 `ERR_FILE_SIZE_EXCEEDED`, `.storageFull` for 507, `.invalidResponse` naming the
/// status and CometChat's code otherwise.
public struct CometChatUploads: Sendable {
    /// Server, app and credentials.
    public let configuration: MockCDNClientConfiguration
    let session: URLSession

    /// A file announced before its upload: what `POST /v1/apps/{app}/uploads` signs an upload URL for.
    public struct AnnouncedFile: Sendable, Equatable, Encodable {
        /// The file name (1 to 255 characters); the server keeps a sanitised form of it in the key.
        public var name: String
        /// Its media type, signed into the upload URL: the `PUT` must send it as `Content-Type`.
        public var contentType: String
        /// Its size in bytes: the most the upload URL accepts, and what the app's file limit is checked
        /// against before any URL is issued.
        public var size: Int

        /// A file to ask an upload URL for.
        ///
        /// - Parameters:
        ///   - name: the file name.
        ///   - contentType: its media type.
        ///   - size: its size in bytes, at least 1.
        public init(name: String, contentType: String, size: Int) {
            self.name = name
            self.contentType = contentType
            self.size = size
        }

        enum CodingKeys: String, CodingKey {
            case name, size
            case contentType = "content_type"
        }
    }

    /// CometChat's uploads for `configuration`, over `session`.
    ///
    /// - Parameters:
    ///   - configuration: server, app, the FAT and the user token.
    ///   - session: the session for the uploads.
    public init(configuration: MockCDNClientConfiguration, session: URLSession = .shared) {
        self.configuration = configuration
        self.session = session
    }

    /// Uploads a file with the FAT (`POST /{app}/media`), held in memory, under the app's file policy.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - fileName: the name sent; the server keeps a sanitised form of it in the key.
    ///   - mimeType: the declared type; nil sends `application/octet-stream` (the server sniffs the bytes).
    /// - Returns: the media URL: plain in the app's `fat` media URL mode (a read needs a FAT or a presigned
    ///   URL), a CloudFront canned link in its `presigned` mode.
    /// - Throws: ``MockCDNClientError``: `.notLoggedIn` without a FAT or when it is refused, `.tooLarge`,
    ///   `.storageFull`, `.invalidResponse`, `.network`.
    public func upload(data: Data, fileName: String, mimeType: String? = nil) async throws(MockCDNClientError) -> URL {
        guard let fat = SecureMedia(configuration: self.configuration).decodedFat else {
            throw .notLoggedIn("no File Access Token: log in first")
        }
        var body = MultipartBody()
        body.appendFile(
            name: "file",
            fileName: fileName,
            mimeType: mimeType ?? "application/octet-stream",
            content: data
        )
        var request = URLRequest(
            url: self.configuration.baseURL.appendingPathComponent("\(self.configuration.appID)/media")
        )
        request.httpMethod = "POST"
        request.setValue(body.contentType, forHTTPHeaderField: "Content-Type")
        request.setValue(fat, forHTTPHeaderField: SecureMedia.fatName)
        request.httpBody = body.data
        let (answer, status) = try await self.send(request)
        guard status == 201 else { throw Self.failure("the media upload", status: status, body: answer) }
        struct Answer: Decodable { let url: URL }
        guard let stored = try? JSONDecoder().decode(Answer.self, from: answer) else {
            throw .invalidResponse("the media upload answer is not {\"url\":...}")
        }
        return stored.url
    }

    /// Asks for one upload URL per file (`POST /v1/apps/{app}/uploads`), with the FAT, else the user token.
    ///
    /// Each URL writes a new key, accepts at most the announced size, and lives the app's `upload_url_ttl`
    /// (15 minutes by default). One file the app refuses (too large, a type or name it does not take) refuses
    /// the whole request.
    ///
    /// - Parameter files: 1 to 10 files.
    /// - Returns: one upload URL per file, in the same order.
    /// - Throws: ``MockCDNClientError``: `.notLoggedIn` without a FAT or user token or when it is refused,
    ///   `.tooLarge` when a file is over the app's limit, `.invalidResponse` for another refusal (400
    ///   `ERR_FILE_COUNT_EXCEEDED`, `ERR_INVALID_FILE_OBJECT`, `ERR_BAD_REQUEST`), `.network`.
    public func uploadURLs(for files: [AnnouncedFile]) async throws(MockCDNClientError) -> [UploadURL] {
        let endpoint = self.configuration.baseURL.appendingPathComponent("v1/apps/\(self.configuration.appID)/uploads")
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let fat = SecureMedia(configuration: self.configuration).decodedFat {
            request.setValue(fat, forHTTPHeaderField: SecureMedia.fatName)
        } else if let token = self.configuration.userTokenProvider(), !token.isEmpty {
            request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
        } else {
            throw .notLoggedIn("no File Access Token or user token: log in first")
        }
        struct Body: Encodable { let files: [AnnouncedFile] }
        request.httpBody = try? JSONEncoder().encode(Body(files: files))
        let (answer, status) = try await self.send(request)
        guard status == 200 else { throw Self.failure("the upload URL request", status: status, body: answer) }
        struct Answer: Decodable { let uploads: [UploadURL] }
        guard let issued = try? JSONDecoder().decode(Answer.self, from: answer) else {
            throw .invalidResponse("the upload URL answer is not {\"uploads\":[...]}")
        }
        return issued.uploads
    }

    private func send(_ request: URLRequest) async throws(MockCDNClientError) -> (Data, Int) {
        try await PresignedMedia(configuration: self.configuration, session: self.session).send(request)
    }

    /// The error for a CometChat answer other than success, by its status and `{"error":{"code","message"}}`.
    ///
    /// - Parameters:
    ///   - what: the call, for the detail.
    ///   - status: the answer's status.
    ///   - body: the answer's body.
    /// - Returns: `.notLoggedIn` for 401, `.tooLarge` for 413, `.storageFull` for 507, `.invalidResponse` otherwise.
    static func failure(_ what: String, status: Int, body: Data) -> MockCDNClientError {
        let detail =
            "\(what) answered \(status) \(PresignedMedia.code(body) ?? ""): \(PresignedMedia.message(body) ?? "")"
        switch status {
        case 401: return .notLoggedIn(detail)
        case 413: return .tooLarge(detail)
        case 507: return .storageFull(detail)
        default: return .invalidResponse(detail)
        }
    }
}
