import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Uploads through URLs someone else signed: a presigned `PUT` (CometChat's upload URLs, or a backend's
/// S3 `put_object` URL) and an S3 presigned POST form.
///
/// Neither needs a credential of the client's own: the signature in the URL or the form is the credential,
/// and the secret behind it stays with whoever signed it.
public struct PresignedUploads: Sendable {
    let session: URLSession

    /// What the store answered for a file it kept.
    public struct StoredUpload: Sendable, Equatable {
        /// The media URL: CometChat's upload URLs answer it in the app's media URL mode (plain, or a CloudFront
        /// canned link); a POST form answers its `Location`; nil when the answer names none (an S3 `PUT`).
        public let url: URL?
        /// The store key (`{app}/media/{uuid}/{name}`), when the answer names it (CometChat's upload URLs).
        public let key: String?
        /// The object's entity tag, quotes included, as the answer's `ETag` header gives it.
        public let etag: String?
    }

    /// Presigned uploads over `session`.
    ///
    /// - Parameter session: the session for the uploads.
    public init(session: URLSession = .shared) {
        self.session = session
    }

    /// Sends a file to a presigned `PUT` URL with the headers signed into it, held in memory.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - upload: the upload URL (from ``CometChatUploads/uploadURLs(for:)`` or a backend).
    /// - Returns: what the store answered.
    /// - Throws: ``MockCDNClientError``: `.tooLarge` for more bytes than the URL or the app takes (413),
    ///   `.storageFull` for 507, `.invalidResponse` naming the status and the server's code for any other refusal (403
    ///   `ERR_PRESIGNED_URL_EXPIRED` for an expired URL: ask for a new one; 403 `ERR_PERMISSION_DENIED` for a
    ///   signature that does not hold), `.network`.
    public func put(_ data: Data, to upload: UploadURL) async throws(MockCDNClientError) -> StoredUpload {
        var request = URLRequest(url: upload.url)
        request.httpMethod = "PUT"
        for (name, value) in upload.headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = data
        let (answer, response) = try await PresignedMedia.exchange(request, session: self.session)
        guard response.statusCode == 200 else { throw Self.failure("the PUT", response.statusCode, answer) }
        struct Stored: Decodable {
            let url: URL
            let key: String
        }
        let stored = try? JSONDecoder().decode(Stored.self, from: answer)
        return StoredUpload(url: stored?.url, key: stored?.key, etag: response.value(forHTTPHeaderField: "ETag"))
    }

    /// Posts a file with a presigned POST form: the form's fields, then the file as the `file` field.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - fileName: the file name sent (S3 puts it in place of `${filename}` in the `key` field).
    ///   - mimeType: the part's declared type; nil for `application/octet-stream`. A `Content-Type` field,
    ///     when the form has one, is what the store keeps.
    ///   - form: the URL and fields a backend signed.
    /// - Returns: what the store answered (S3 answers 204 by default, 201 or 200 when the form's
    ///   `success_action_status` asks).
    /// - Throws: ``MockCDNClientError``: `.tooLarge` for S3's `EntityTooLarge` (over the policy's
    ///   `content-length-range`) or 413, `.storageFull` for 507, `.invalidResponse` naming S3's code for any other refusal (403
    ///   `AccessDenied` for an expired policy or a field it does not allow, 415 for a type the app refuses),
    ///   `.network`.
    public func post(
        _ data: Data,
        fileName: String,
        mimeType: String? = nil,
        form: PresignedPostForm
    ) async throws(MockCDNClientError) -> StoredUpload {
        var body = MultipartBody()
        for field in form.fields { body.append(field: field.name, value: field.value) }
        body.appendFile(
            name: "file",
            fileName: fileName,
            mimeType: mimeType ?? "application/octet-stream",
            content: data
        )
        var request = URLRequest(url: form.url)
        request.httpMethod = "POST"
        request.setValue(body.contentType, forHTTPHeaderField: "Content-Type")
        request.httpBody = body.data
        let (answer, response) = try await PresignedMedia.exchange(request, session: self.session)
        guard (200..<300).contains(response.statusCode) else {
            throw Self.failure("the POST form", response.statusCode, answer)
        }
        return StoredUpload(
            url: response.value(forHTTPHeaderField: "Location").flatMap(URL.init(string:)),
            key: nil,
            etag: response.value(forHTTPHeaderField: "ETag")
        )
    }

    /// The error for a refused upload, by its status and code: CometChat's JSON envelope or S3's XML.
    private static func failure(_ what: String, _ status: Int, _ body: Data) -> MockCDNClientError {
        let code = PresignedMedia.code(body) ?? Self.element("Code", in: body) ?? ""
        let message = PresignedMedia.message(body) ?? Self.element("Message", in: body) ?? ""
        let detail = "\(what) answered \(status) \(code): \(message)"
        if status == 413 || code == "EntityTooLarge" { return .tooLarge(detail) }
        return status == 507 ? .storageFull(detail) : .invalidResponse(detail)
    }

    /// The text of the first `<name>` element of an S3 XML error, without parsing the rest.
    private static func element(_ name: String, in body: Data) -> String? {
        let text = String(decoding: body.prefix(4096), as: UTF8.self)
        guard let start = text.range(of: "<\(name)>"),
            let end = text.range(of: "</\(name)>", range: start.upperBound..<text.endIndex)
        else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }
}
