import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore

/// PostObject (`POST /{app}` with a `multipart/form-data` body): a browser upload signed by a POST policy, as
/// boto3's `generate_presigned_post` makes it and an HTML form sends it. The fields before the file are checked
/// against the policy and its signature (`PostPolicy.verify`) with the `key` after `${filename}` expansion,
/// then the file streams into the store under the app's upload policy and the policy's content-length-range.
/// A `Content-MD5` or `x-amz-checksum-*` field is checked against the file (400 `BadDigest`); `acl` (a canned ACL)
/// and `tagging` (a `Tagging` document) give the object its ACL and tags (`WriteAccess`). Nothing is stored on
/// a refusal. The answer is S3's: `success_action_redirect` (303), else `success_action_status` (200, 201 with a
/// `PostResponse`, or 204), with the file's MD5 as the ETag.
struct FormUpload {
    let clock: MockClock
    let uploads: UploadReceiver
    let links: LinkSigner

    /// S3's answer to a body that is not multipart/form-data with a boundary.
    static let malformed = S3Error(
        status: .badRequest,
        code: "MalformedPOSTRequest",
        message: "The body of your POST request is not well-formed multipart/form-data."
    )

    /// S3's answer to a form without a `file` part.
    static let noFile = S3Error(
        status: .badRequest,
        code: "InvalidArgument",
        message: "POST requires exactly one file upload per request.",
        details: [("ArgumentName", "file"), ("ArgumentValue", "0")]
    )

    /// Whether a bucket POST is a form upload: a `multipart/form-data` body, whatever its parameters.
    static func isForm(_ request: Request) -> Bool {
        guard let type = request.headers[.contentType] else { return false }
        let essence = type.split(separator: ";", maxSplits: 1).first ?? ""
        return essence.trimmingCharacters(in: .whitespaces).lowercased() == "multipart/form-data"
    }

    /// Takes the upload.
    ///
    /// - Parameters:
    ///   - request: the POST.
    ///   - app: the bucket's app, whose SigV4 credentials sign the policy.
    ///   - context: the request's context.
    /// - Returns: S3's answer: 303 to `success_action_redirect`, or 200, 201 or 204 with the ETag.
    /// - Throws: `PostPolicyRefusal` with S3's code for a form the policy refuses; `UploadFailure` for what the
    ///   app's upload policy refuses; 400 `MalformedPOSTRequest` for a body that is not a form.
    func post(_ request: Request, app: MediaApp, context: AppRequestContext) async throws -> Response {
        try UploadReceiver.checkFraming(request)
        guard let boundary = MultipartReader.boundary(contentType: request.headers[.contentType]) else {
            throw Self.malformed
        }
        // The app's limit depends on the key, which the form names: the body is held to the largest any key
        // of the app allows, and the file to the key's limit once the key is known.
        let largest = S3Limits.request(to: app)
        let bound = largest + UploadReceiver.multipartAllowance
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > bound {
            throw UploadFailure.tooLarge(limit: largest)
        }
        let epoch = self.uploads.epoch.current
        let watch = StallWatch(seconds: self.uploads.stallTimeout(for: app))
        let body = self.uploads.watchedBody(request, watch: watch)
        return try await watch.run {
            let reader = MultipartReader(body: body, boundary: boundary, maximumBytes: bound)
            let form: PostForm
            do {
                form = try await PostForm.read(reader)
            } catch UploadFailure.input {
                throw Self.malformed
            }
            let fields = form.expandedFields
            let key = Self.value("key", in: fields) ?? ""
            let policy = try PostPolicy.verify(
                fields: fields,
                bucket: app.id,
                key: key,
                credentials: app.sigV4Credentials,
                now: self.clock.unixSeconds
            )
            return try await CredentialNote.answer(authorisedBy: .postPolicy, request: request, context: context) {
                guard let file = form.file else { throw Self.noFile }
                let objectKey = try ObjectKey(app.id + "/" + key)
                let access = try await WriteAccess.form(fields)
                // The file's digests, as a PutObject's body's: the MD5 (the ETag, as S3's), a claimed checksum
                // checked, and the checksum kept with the object.
                let digests = try PayloadDigests(form: fields)
                let fileBody = FormFileBody(
                    base: file,
                    rest: reader,
                    maximum: policy.contentLengthRange?.upperBound,
                    digests: digests
                )
                let object = try await self.store(
                    fileBody,
                    at: objectKey,
                    app: app,
                    fields: fields,
                    access: access,
                    policy: policy
                )
                do {
                    try self.uploads.checkEpoch(epoch)
                } catch {
                    await self.uploads.discard(object)
                    throw error
                }
                var answer = self.answer(request, object: object, key: objectKey, app: app, fields: fields)
                answer.headers.append(contentsOf: digests.answerHeaders())
                return answer
            }
        }
    }

    /// Streams the file into the store under the app's upload policy for `key` and the policy's
    /// content-length-range: past its maximum while it arrives (`FormFileBody`), under its minimum before it
    /// is committed.
    private func store(
        _ file: FormFileBody<MultipartPartBody.AsyncIterator>,
        at key: ObjectKey,
        app: MediaApp,
        fields: [(name: String, value: String)],
        access: WriteAccess,
        policy: PostPolicy
    ) async throws -> ObjectMetadata {
        let (kind, config, _) = try await self.uploads.policy(for: key, app: app)
        let limit = try await S3Limits.request(to: key, app: app, uploads: self.uploads)
        let extras = access.applied(to: try ObjectHeaders.extras(fields: fields))
        let digests = file.digests
        do {
            let upload = UploadReceiver.IncomingUpload(
                name: key.rawValue.split(separator: "/").last.map(String.init),
                declaredType: Self.value("content-type", in: fields),
                keepsDeclaredType: true,
                key: { _ in key },
                kind: kind,
                config: config,
                limit: limit,
                extras: extras,
                allowsEmpty: true,
                digest: .etagOnly,
                seal: { summary, attributes in
                    try policy.checkContentLength(Int64(summary.size))
                    try digests.seal(&attributes)
                },
                event: .post
            )
            return try await self.uploads.store(upload, body: file)
        } catch {
            throw UploadReceiver.refusal(error, limit: limit)
        }
    }

    /// S3's answer to a stored upload, the ETag on each: 303 to `success_action_redirect` (or the older
    /// `redirect`) with `bucket`, `key` and `etag` added to its query when it is an absolute URL; else
    /// `success_action_status` 200 or 201 (a `PostResponse`), and 204 for any other value or none.
    private func answer(
        _ request: Request,
        object: ObjectMetadata,
        key: ObjectKey,
        app: MediaApp,
        fields: [(name: String, value: String)]
    ) -> Response {
        let name = String(key.rawValue.dropFirst(app.id.count + 1))
        let redirect = Self.value("success_action_redirect", in: fields) ?? Self.value("redirect", in: fields)
        if let redirect, let location = Self.redirect(redirect, bucket: app.id, key: name, etag: object.etag) {
            return Response(status: .seeOther, headers: [.location: location, .eTag: object.etag])
        }
        let location = self.links.objectURL(key, base: self.links.base(for: request))
        let headers: HTTPFields = [.eTag: object.etag, .location: location]
        switch Self.value("success_action_status", in: fields) {
        case "200":
            return Response(status: .ok, headers: headers)
        case "201":
            var xml = S3XML()
            xml.element("PostResponse") { xml in
                xml.element("Location", location)
                xml.element("Bucket", app.id)
                xml.element("Key", name)
                xml.element("ETag", object.etag)
            }
            return xml.response(status: .created, headers: headers)
        default:
            return Response(status: .noContent, headers: headers)
        }
    }

    /// `url` with S3's `bucket`, `key` and `etag` added to its query (before any fragment); nil for a value that
    /// is no absolute URL with a host, which S3 ignores ("If ... Amazon S3 cannot interpret the URL, it acts as
    /// if the field is not present").
    static func redirect(_ url: String, bucket: String, key: String, etag: String) -> String? {
        guard let components = URLComponents(string: url), components.scheme != nil,
            let host = components.host, !host.isEmpty
        else { return nil }
        let fragmentStart = url.firstIndex(of: "#") ?? url.endIndex
        let base = url[..<fragmentStart]
        let added = [("bucket", bucket), ("key", key), ("etag", etag)]
            .map { $0.0 + "=" + PercentEncoding.encode($0.1) }.joined(separator: "&")
        let separator = !base.contains("?") ? "?" : (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&")
        return String(base) + separator + added + String(url[fragmentStart...])
    }

    /// The first field named `name`, matched without regard to case, as S3 reads a form.
    static func value(_ name: String, in fields: [(name: String, value: String)]) -> String? {
        fields.first { $0.name.lowercased() == name }?.value
    }
}

/// The file of a POST form, held to the policy's content-length-range maximum as it arrives: past it, the upload
/// is refused with S3's `EntityTooLarge` before any more of it is read or stored. Each piece goes through the
/// form's digests on its way. At the file's end the rest of the body is read past (S3 ignores the fields after
/// the file), so a body that breaks off after the file refuses the upload before it is committed.
struct FormFileBody<Base: AsyncIteratorProtocol>: AsyncIteratorProtocol where Base.Element == ByteBuffer {
    var base: Base
    /// The body the file part belongs to.
    let rest: MultipartReader
    /// The range's upper bound; nil when the policy has none.
    let maximum: Int64?
    /// The file's MD5 and checksum, taken as it streams past.
    let digests: PayloadDigests
    private var received: Int64 = 0
    private var ended = false

    init(base: Base, rest: MultipartReader, maximum: Int64?, digests: PayloadDigests) {
        self.base = base
        self.rest = rest
        self.maximum = maximum
        self.digests = digests
    }

    mutating func next() async throws -> ByteBuffer? {
        guard !self.ended else { return nil }
        guard let chunk = try await self.base.next() else {
            while try await self.rest.next() != nil {}
            self.ended = true
            return nil
        }
        self.received += Int64(chunk.readableBytes)
        if let maximum = self.maximum, self.received > maximum {
            throw PostPolicyRefusal.entityTooLarge(proposed: self.received, maximum: maximum)
        }
        self.digests.update(chunk)
        return chunk
    }
}
