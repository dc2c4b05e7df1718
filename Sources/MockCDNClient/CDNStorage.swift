import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an upload gives back, as Stream's `UploadedFile`.
///
/// The links are CloudFront custom-policy links in the shape Stream's CDN issues, valid for the app's
/// `link_ttl` (14 days by default) from the server's clock.
public struct UploadedFile: Sendable, Equatable {
    /// The signed link of the stored file.
    public var fileURL: URL
    /// The signed thumbnail link: an image's (150 x 150, clip), or a video's poster; nil for other files.
    public var thumbnailURL: URL?
    /// One signed link per size asked for in `AttachmentUploadOptions.uploadSizes`, in the same order.
    public var sizedURLs: [URL]

    /// A result with a file link and, for images, a thumbnail link and the links of the sizes asked for.
    ///
    /// - Parameters:
    ///   - fileURL: the signed link of the stored file.
    ///   - thumbnailURL: the signed thumbnail link, if any.
    ///   - sizedURLs: the links of the sizes asked for, in order.
    public init(fileURL: URL, thumbnailURL: URL? = nil, sizedURLs: [URL] = []) {
        self.fileURL = fileURL
        self.thumbnailURL = thumbnailURL
        self.sizedURLs = sizedURLs
    }
}

/// How an upload is made, as Stream's `AttachmentUploadOptions`.
public struct AttachmentUploadOptions: Sendable {
    /// Which Stream endpoint and policy: `image` (sniffed image types, thumbnail) or `file`.
    public enum Kind: String, Sendable {
        /// An image route: only Stream's image types, the image upload settings, a thumbnail link.
        case image
        /// A file route: any type the app's file upload settings allow.
        case file
    }

    /// Image or file.
    public var kind: Kind
    /// `type:id` of the channel to upload to (the uploader joins it, and the channel's listing shows the
    /// upload); nil for `/api/v2/uploads`, which belongs to no channel.
    public var channel: String?
    /// The file name sent with the upload (default: the local file's name, or `file`); the server keeps it as
    /// the original name and stores a sanitised form of it in the key.
    public var fileName: String?
    /// The declared type of the part; the server sniffs the bytes and defers to them when missing.
    public var mimeType: String?
    /// Stream's `upload_sizes`: resized links the answer should carry besides the file's (images). The server
    /// checks each as it checks a read's resize, and refuses the upload, storing nothing, when one is invalid.
    public var uploadSizes: [CDNImageResize]
    /// Called with the fraction of the multipart body sent, 0...1, as it goes out; from URLSession's delegate
    /// queue, not the caller's.
    public var progress: (@Sendable (Double) -> Void)?

    /// Upload options; a file upload to `/api/v2/uploads/file` by default.
    ///
    /// - Parameters:
    ///   - kind: image or file route.
    ///   - channel: `type:id` of the channel to upload to; nil for no channel.
    ///   - fileName: the name to send; nil for the local file's name.
    ///   - mimeType: the declared type; nil sends `application/octet-stream`.
    ///   - uploadSizes: extra resized links to ask for (images).
    ///   - progress: called with the fraction sent.
    public init(
        kind: Kind = .file,
        channel: String? = nil,
        fileName: String? = nil,
        mimeType: String? = nil,
        uploadSizes: [CDNImageResize] = [],
        progress: (@Sendable (Double) -> Void)? = nil
    ) {
        self.kind = kind
        self.channel = channel
        self.fileName = fileName
        self.mimeType = mimeType
        self.uploadSizes = uploadSizes
        self.progress = progress
    }
}

/// Stream's `CDNStorage`: upload a local file, delete a remote one.
///
/// Stream's SDK sends every attachment through its storage, so an app can replace the CDN in one place;
/// ``MockCDNStorage`` is MockCDN's.
public protocol CDNStorage: Sendable {
    /// Uploads a local file.
    ///
    /// - Parameters:
    ///   - localUrl: the file to upload.
    ///   - options: image or file, channel, name, type, sizes, progress.
    ///   - completion: called once with the uploaded file's links, or with why the upload failed.
    func uploadAttachment(
        localUrl: URL,
        options: AttachmentUploadOptions,
        completion: @escaping @Sendable (Result<UploadedFile, any Error>) -> Void
    )
    /// Deletes an uploaded file.
    ///
    /// - Parameters:
    ///   - remoteUrl: the file's link, as the upload answered it (signed or not).
    ///   - completion: called once with nil on success, or with why the delete failed.
    func deleteAttachment(remoteUrl: URL, completion: @escaping @Sendable ((any Error)?) -> Void)
}

/// Uploads to, lists and deletes from MockCDN's Stream-compatible endpoints with the user token.
///
/// The multipart body is written to a temporary file first and sent from there, so progress reports the
/// bytes really sent. On Apple platforms the file streams, so memory stays flat; on Linux the body is read
/// into memory, because FoundationNetworking's file upload can crash when the task is cancelled mid-read.
/// Every call needs a user token from ``MockCDNClientConfiguration/userTokenProvider``.
public struct MockCDNStorage: CDNStorage {
    /// Server, app and credentials.
    public let configuration: MockCDNClientConfiguration

    /// A storage for `configuration`.
    ///
    /// - Parameter configuration: server, app and credentials; uploads use its user token and API key.
    public init(configuration: MockCDNClientConfiguration) {
        self.configuration = configuration
    }

    /// Uploads a local file.
    ///
    /// - Parameters:
    ///   - localURL: the file.
    ///   - options: image or file, channel, name, type, sizes, progress.
    /// - Returns: the signed file and thumbnail links, and one link per size asked for.
    /// - Throws: ``MockCDNClientError``: `.notLoggedIn` without a user token, `.invalidURL` when the file
    ///   cannot be read or the channel is not `type:id`, `.tooLarge` for 413, `.storageFull` for 507, `.invalidResponse`
    ///   naming the status when the server answers anything else but 201, `.network`; or `CancellationError` when the
    ///   task is cancelled.
    public func upload(localURL: URL, options: AttachmentUploadOptions) async throws -> UploadedFile {
        let name = options.fileName ?? (localURL.lastPathComponent.isEmpty ? "file" : localURL.lastPathComponent)
        return try await self.upload(options: options, fileName: name) { output in
            guard let input = InputStream(url: localURL) else {
                throw MockCDNClientError.invalidURL("cannot read \(localURL.path)")
            }
            input.open()
            defer { input.close() }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = input.read(&buffer, maxLength: buffer.count)
                if count < 0 { throw MockCDNClientError.invalidURL("cannot read \(localURL.path)") }
                if count == 0 { break }
                output.write(Data(buffer[0..<count]))
            }
        }
    }

    /// Uploads bytes from memory.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - options: image or file, channel, name (`file` when nil), type, sizes, progress.
    /// - Returns: the signed file and thumbnail links, and one link per size asked for.
    /// - Throws: as ``upload(localURL:options:)``.
    public func upload(data: Data, options: AttachmentUploadOptions) async throws -> UploadedFile {
        try await self.upload(options: options, fileName: options.fileName ?? "file") { $0.write(data) }
    }

    /// Deletes a file by its link (signed or not); the uploader's token or a server token.
    ///
    /// The server drops the object's resized variants and video poster with it; every later read is 404.
    ///
    /// - Parameters:
    ///   - remoteURL: the file's link, as the upload answered it.
    ///   - kind: which route to send the delete to; the server deletes the object the link names either way.
    /// - Throws: ``MockCDNClientError``: `.notLoggedIn` without a user token, `.invalidResponse` naming the
    ///   status when the server does not answer 200 (404 for a missing object, 403 for another user's),
    ///   `.network`.
    public func delete(remoteURL: URL, kind: AttachmentUploadOptions.Kind = .file) async throws {
        var components = URLComponents(
            url: self.configuration.baseURL.appendingPathComponent("api/v2/uploads/\(kind.rawValue)"),
            resolvingAgainstBaseURL: false
        )
        components?.queryItems = [
            URLQueryItem(name: "api_key", value: self.configuration.apiKey),
            URLQueryItem(name: "url", value: remoteURL.absoluteString),
        ]
        guard let url = components?.url else { throw MockCDNClientError.invalidURL("cannot build the delete URL") }
        var request = try self.authorized(URLRequest(url: url))
        request.httpMethod = "DELETE"
        let (data, status) = try await PresignedMedia(configuration: self.configuration).send(request)
        guard status == 200 else {
            throw MockCDNClientError.invalidResponse(
                "delete answered \(status): \(String(decoding: data.prefix(300), as: UTF8.self))"
            )
        }
    }

    /// An upload as a channel's listing shows it, with a freshly signed link.
    public struct ListedUpload: Sendable, Decodable {
        /// A link signed now: it works even when the one the upload answered has expired.
        public let file: URL
        /// The file name the upload was sent with (else the key's last segment).
        public let name: String
        /// The uploader; nil for an upload a server token made without naming a user.
        public let userID: String?

        enum CodingKeys: String, CodingKey {
            case file, name
            case userID = "user_id"
        }
    }

    /// The uploads of a channel the user belongs to, oldest first, each with a freshly signed link
    /// (`GET /channels/{type}/{id}/uploads`).
    ///
    /// - Parameters:
    ///   - channel: `type:id`.
    ///   - limit: 1...1000 (the server's default is 100).
    ///   - offset: how many to skip; nil for none.
    /// - Returns: the uploads, oldest first.
    /// - Throws: ``MockCDNClientError``: `.invalidURL` when the channel is not `type:id`, `.notLoggedIn`
    ///   without a user token, `.invalidResponse` for an answer other than 200 (403 when the user is not a
    ///   member) or one that does not decode, `.network`.
    public func uploads(channel: String, limit: Int? = nil, offset: Int? = nil) async throws -> [ListedUpload] {
        let parts = channel.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw MockCDNClientError.invalidURL("a channel is type:id, not \(channel)") }
        var components = URLComponents(
            url: self.configuration.baseURL.appendingPathComponent("channels/\(parts[0])/\(parts[1])/uploads"),
            resolvingAgainstBaseURL: false
        )
        components?.queryItems =
            [URLQueryItem(name: "api_key", value: self.configuration.apiKey)]
            + (limit.map { [URLQueryItem(name: "limit", value: String($0))] } ?? [])
            + (offset.map { [URLQueryItem(name: "offset", value: String($0))] } ?? [])
        guard let url = components?.url else { throw MockCDNClientError.invalidURL("cannot build the listing URL") }
        let (data, status) = try await PresignedMedia(configuration: self.configuration)
            .send(try self.authorized(URLRequest(url: url)))
        guard status == 200 else {
            throw MockCDNClientError.invalidResponse(
                "the listing answered \(status): \(String(decoding: data.prefix(300), as: UTF8.self))"
            )
        }
        struct Listing: Decodable { let uploads: [ListedUpload] }
        do {
            return try JSONDecoder().decode(Listing.self, from: data).uploads
        } catch {
            throw MockCDNClientError.invalidResponse("the listing is not the JSON expected")
        }
    }

    /// The completion-handler form of ``upload(localURL:options:)`` (``CDNStorage``).
    ///
    /// - Parameters:
    ///   - localUrl: the file to upload.
    ///   - options: image or file, channel, name, type, sizes, progress.
    ///   - completion: called once, from a task of its own, with the uploaded file or the error.
    public func uploadAttachment(
        localUrl: URL,
        options: AttachmentUploadOptions,
        completion: @escaping @Sendable (Result<UploadedFile, any Error>) -> Void
    ) {
        Task {
            do {
                completion(.success(try await self.upload(localURL: localUrl, options: options)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// The completion-handler form of ``delete(remoteURL:kind:)`` (``CDNStorage``), on the file route.
    ///
    /// - Parameters:
    ///   - remoteUrl: the file's link, as the upload answered it.
    ///   - completion: called once, from a task of its own, with nil on success or the error.
    public func deleteAttachment(remoteUrl: URL, completion: @escaping @Sendable ((any Error)?) -> Void) {
        Task {
            do {
                try await self.delete(remoteURL: remoteUrl)
                completion(nil)
            } catch {
                completion(error)
            }
        }
    }

    // MARK: - Upload

    private struct Answer: Decodable {
        struct Sized: Decodable {
            let url: String
        }

        let file: String
        let thumbURL: String?
        let uploadSizes: [Sized]?

        enum CodingKeys: String, CodingKey {
            case file
            case thumbURL = "thumb_url"
            case uploadSizes = "upload_sizes"
        }
    }

    /// An `upload_sizes` entry as Stream's API takes it: `{width,height,resize,crop}`, unset parts left out.
    private struct SizeField: Encodable {
        let width: Int?
        let height: Int?
        let resize: String?
        let crop: String?

        init(_ size: CDNImageResize) {
            self.width = size.width
            self.height = size.height
            self.resize = size.mode?.rawValue
            self.crop = size.crop?.rawValue
        }
    }

    private func authorized(_ request: URLRequest) throws -> URLRequest {
        guard let token = self.configuration.userTokenProvider(), !token.isEmpty else {
            throw MockCDNClientError.notLoggedIn("no user token")
        }
        var request = request
        request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
        request.setValue("jwt", forHTTPHeaderField: "stream-auth-type")
        return request
    }

    private func upload(
        options: AttachmentUploadOptions,
        fileName: String,
        writeContent: (FileHandle) throws -> Void
    ) async throws -> UploadedFile {
        let path: String
        if let channel = options.channel {
            let parts = channel.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { throw MockCDNClientError.invalidURL("a channel is type:id") }
            path = "channels/\(parts[0])/\(parts[1])/\(options.kind.rawValue)"
        } else {
            path = "api/v2/uploads/\(options.kind.rawValue)"
        }
        var components = URLComponents(
            url: self.configuration.baseURL.appendingPathComponent(path),
            resolvingAgainstBaseURL: false
        )
        components?.queryItems = [URLQueryItem(name: "api_key", value: self.configuration.apiKey)]
        guard let url = components?.url else { throw MockCDNClientError.invalidURL("cannot build the upload URL") }

        // The multipart body goes to a temporary file, streamed from the source: an upload task from a file
        // reports progress as the bytes leave, and nothing large is held in memory.
        let boundary = "mockcdn-client-" + UUID().uuidString
        let bodyFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mockcdn-upload-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: bodyFile) }
        guard FileManager.default.createFile(atPath: bodyFile.path, contents: nil),
            let output = try? FileHandle(forWritingTo: bodyFile)
        else { throw MockCDNClientError.invalidURL("cannot write a temporary file") }
        let safeName = fileName.replacingOccurrences(of: "\"", with: "_").replacingOccurrences(of: "\r", with: "_")
            .replacingOccurrences(of: "\n", with: "_")
        var head = ""
        if !options.uploadSizes.isEmpty {
            let sizes = try JSONEncoder().encode(options.uploadSizes.map(SizeField.init))
            head += "--\(boundary)\r\nContent-Disposition: form-data; name=\"upload_sizes\"\r\n\r\n"
            head += String(decoding: sizes, as: UTF8.self) + "\r\n"
        }
        head += "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(safeName)\"\r\n"
        head += "Content-Type: \(options.mimeType ?? "application/octet-stream")\r\n\r\n"
        do {
            output.write(Data(head.utf8))
            try writeContent(output)
            output.write(Data("\r\n--\(boundary)--\r\n".utf8))
            try output.close()
        } catch {
            try? output.close()
            throw error
        }

        var request = try self.authorized(URLRequest(url: url))
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        let (data, status) = try await UploadTask.run(request, bodyFile: bodyFile, progress: options.progress)
        guard status == 201 else {
            let detail = "upload answered \(status): \(String(decoding: data.prefix(300), as: UTF8.self))"
            switch status {
            case 413: throw MockCDNClientError.tooLarge(detail)
            case 507: throw MockCDNClientError.storageFull(detail)
            default: throw MockCDNClientError.invalidResponse(detail)
            }
        }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: data), let file = URL(string: answer.file)
        else {
            throw MockCDNClientError.invalidResponse("the upload answer has no file link")
        }
        return UploadedFile(
            fileURL: file,
            thumbnailURL: answer.thumbURL.flatMap(URL.init(string:)),
            sizedURLs: (answer.uploadSizes ?? []).compactMap { URL(string: $0.url) }
        )
    }
}

/// One upload task with a delegate of its own: progress as the body is sent, the answer, cancellation.
///
/// The caller's continuation is resumed exactly once, by whichever comes first: the task's completion or
/// the caller's cancellation. Cancellation does not wait for URLSession to report it: FoundationNetworking
/// may report a task cancelled before it started on the delegate queue ahead of the operation that starts
/// it, or not at all, and either would leave the caller waiting forever.
final class UploadTask: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private enum Outcome {
        case pending
        case waiting(CheckedContinuation<(Data, Int), any Error>)
        case finished(Result<(Data, Int), any Error>)
        case delivered
    }

    // `received` is touched only from the session's serial delegate queue; `outcome` under `lock`.
    private var received = Data()
    private let lock = NSLock()
    private var outcome = Outcome.pending
    private let progress: (@Sendable (Double) -> Void)?

    private init(progress: (@Sendable (Double) -> Void)?) {
        self.progress = progress
    }

    static func run(
        _ request: URLRequest,
        bodyFile: URL,
        progress: (@Sendable (Double) -> Void)?
    ) async throws -> (Data, Int) {
        let delegate = UploadTask(progress: progress)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        #if canImport(FoundationNetworking)
        // FoundationNetworking's file upload can crash (a `try!` on a libcurl read error) when the task is
        // cancelled mid-read, so on Linux the body goes from memory; Apple platforms stream the file.
        let task = session.uploadTask(with: request, from: try Data(contentsOf: bodyFile))
        #else
        let task = session.uploadTask(with: request, fromFile: bodyFile)
        #endif
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Started only when no outcome is known yet: a cancelled caller never sends a byte.
                if delegate.wait(with: continuation) { task.resume() }
            }
        } onCancel: {
            delegate.finish(.failure(CancellationError()))
            task.cancel()
        }
    }

    /// Hands the caller's continuation over; true when the task should start, false when it was resumed
    /// at once with an outcome that arrived first.
    private func wait(with continuation: CheckedContinuation<(Data, Int), any Error>) -> Bool {
        self.lock.lock()
        guard case .finished(let result) = self.outcome else {
            self.outcome = .waiting(continuation)
            self.lock.unlock()
            return true
        }
        self.outcome = .delivered
        self.lock.unlock()
        continuation.resume(with: result)
        return false
    }

    /// Records the outcome; the first one wins, and reaches the caller once it waits.
    private func finish(_ result: Result<(Data, Int), any Error>) {
        self.lock.lock()
        switch self.outcome {
        case .pending:
            self.outcome = .finished(result)
            self.lock.unlock()
        case .waiting(let continuation):
            self.outcome = .delivered
            self.lock.unlock()
            continuation.resume(with: result)
        case .finished, .delivered:
            self.lock.unlock()
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        guard totalBytesExpectedToSend > 0 else { return }
        self.progress?(min(1, Double(totalBytesSent) / Double(totalBytesExpectedToSend)))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        self.received.append(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            let cancelled = (error as? URLError)?.code == .cancelled
            self.finish(
                .failure(cancelled ? CancellationError() : MockCDNClientError.network(error.localizedDescription))
            )
        } else {
            self.finish(.success((self.received, (task.response as? HTTPURLResponse)?.statusCode ?? 0)))
        }
    }
}
