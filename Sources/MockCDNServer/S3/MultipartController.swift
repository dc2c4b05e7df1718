import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore

/// S3 multipart uploads, an app being the bucket: CreateMultipartUpload (`POST /{app}/{key}?uploads`),
/// CompleteMultipartUpload (`POST /{app}/{key}?uploadId=ID`), AbortMultipartUpload (`DELETE ...?uploadId=`),
/// ListParts (`GET ...?uploadId=`, which the CDN's read route hands over) and ListMultipartUploads
/// (`GET /{app}?uploads`, from the bucket route). Parts are `PartWriter`'s. Credentials are the app's keys,
/// in the `Authorization` header or a presigned query, as on every S3 route.
struct MultipartController {
    let apps: AppRegistry
    let uploads: UploadReceiver
    let parts: PartStore
    let links: LinkSigner
    /// A completion that joins for long is answered so (`KeptAliveAnswer`).
    let keepAlive: KeptAliveAnswer

    /// The most parts one ListParts page and uploads one ListMultipartUploads page list, as on S3.
    static let maximumListed = 1000

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post(":app/**") { request, context in try await self.post(request, context: context) }
    }

    private var clock: MockClock { self.parts.clock }

    /// `?uploads`: CreateMultipartUpload; `?uploadId=`: CompleteMultipartUpload; any other POST is 501.
    private func post(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = context.query(of: request)
        if query.decoded.contains(where: { $0.name == "uploads" }) {
            return try await self.create(request, context: context, query: query)
        }
        if let id = query.first("uploadId") {
            return try await self.complete(request, context: context, query: query, id: id)
        }
        _ = try await S3Authenticator.app(context, in: self.apps)
        throw S3Error(
            status: HTTPResponse.Status(code: 501),
            code: "NotImplemented",
            message: "MockCDN takes POST /{app}/{key}?uploads and ?uploadId= (multipart uploads) on an object"
        )
    }

    /// CreateMultipartUpload: the object's declared type, stored headers, ACL and tags are kept for the object
    /// the parts will make, with the checksum asked for (`MultipartChecksum`); the answer names the upload, and
    /// the checksum's algorithm and type.
    private func create(_ request: Request, context: AppRequestContext, query: QueryItems) async throws -> Response {
        let authenticated = try await S3Authenticator.object(
            request,
            context: context,
            apps: self.apps,
            now: self.clock.unixSeconds
        )
        let (app, key, source) = (authenticated.app, authenticated.key, authenticated.source)
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            await self.parts.freeExpired()
            let checksum = try MultipartChecksum.requested(by: request)
            let upload = self.parts.uploads.create(
                app: app.id,
                key: key,
                contentType: request.headers[.contentType],
                extras: try WriteAccess(request.headers).applied(to: try ObjectHeaders.extras(from: request)),
                checksum: checksum,
                now: self.clock.now
            )
            var xml = S3XML()
            xml.element("InitiateMultipartUploadResult", root: true) { xml in
                xml.element("Bucket", app.id)
                xml.element("Key", upload.bucketKey)
                xml.element("UploadId", upload.id)
            }
            var response = xml.response()
            if let checksum { response.headers.append(contentsOf: checksum.answerHeaders) }
            return response
        }
    }

    /// CompleteMultipartUpload: the parts the document names, checked, joined into the object under the app's
    /// upload policy, with S3's multipart ETag and the parts' sizes (`ObjectParts`, for reads of one part); the
    /// upload and all of its parts are freed once it is stored. `If-Match` and `If-None-Match: *` make it
    /// conditional, as a PutObject (`WriteCondition`): a condition that does not hold stores nothing and leaves
    /// the upload open. The object keeps a checksum: the composite one of an upload created with a composite
    /// checksum (`CompletedParts.compositeChecksum`), else the CRC of all of its bytes (the upload's, or
    /// CRC64NVME as S3 gives every object), taken as the parts are joined; a checksum the request claims for
    /// the object (`x-amz-checksum-*`) must be that one.
    private func complete(
        _ request: Request,
        context: AppRequestContext,
        query: QueryItems,
        id: String
    ) async throws -> Response {
        let body = try await S3XML.document(of: request, upTo: CompletedParts.maximumBodyBytes)
        let authenticated = try await S3Authenticator.object(
            request,
            context: context,
            apps: self.apps,
            now: self.clock.unixSeconds,
            payload: body
        )
        let (app, key, source) = (authenticated.app, authenticated.key, authenticated.source)
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            let document = try await CompletedParts.read(body)
            let condition = try WriteCondition(request)
            let objectClaim = try Self.objectClaim(request)
            await self.parts.freeExpired()
            let upload = try self.parts.uploads.beginCompletion(id, key: key, now: self.clock.now)
            let plan: JoinPlan
            do {
                // As PutObject's: before a part is read, and again just before the object is committed.
                try await condition.check(self.uploads.store, key: key)
                plan = try await self.plan(request, upload: upload, document: document, app: app)
            } catch {
                _ = self.parts.uploads.endCompletion(id, completed: false)
                throw error
            }
            // Joining may take minutes: past a few seconds the answer is kept alive, as S3 keeps it.
            return try await self.keepAlive.answer(context: context) {
                let object: ObjectMetadata
                do {
                    object = try await self.join(
                        plan,
                        upload: upload,
                        app: app,
                        condition: condition,
                        claim: objectClaim
                    )
                } catch {
                    _ = self.parts.uploads.endCompletion(id, completed: false)
                    throw error
                }
                await self.parts.delete(self.parts.uploads.endCompletion(id, completed: true))
                var xml = S3XML()
                xml.element("CompleteMultipartUploadResult", root: true) { xml in
                    xml.element("Location", self.links.objectURL(key, base: self.links.base(for: request)))
                    xml.element("Bucket", app.id)
                    xml.element("Key", upload.bucketKey)
                    xml.element("ETag", object.etag)
                    // As S3: the object's checksum and its type, for an upload created with a checksum.
                    if let checksum = upload.checksum,
                        let value = object.extras[ObjectHeaders.checksumExtra(checksum.algorithm.name)]
                    {
                        xml.element("Checksum" + checksum.algorithm.name, value)
                        xml.element("ChecksumType", checksum.kind.rawValue)
                    }
                }
                return xml
            }
        }
    }

    /// What a completion joins, checked before a byte is read: the parts the document selects, the checksum
    /// the object will keep, its ETag and the app's size limit.
    private struct JoinPlan: Sendable {
        let selected: [MultipartUploads.Part]
        /// The composite checksum of an upload created with one; nil: a full-object CRC of `algorithm`.
        let composite: String?
        let algorithm: ChecksumAlgorithm
        let limit: Int
    }

    /// Checks the document against the upload.
    ///
    /// - Throws: 400 `InvalidPart`, `InvalidPartOrder`, `BadDigest` (`x-amz-checksum-type`), a composite
    ///   checksum's refusal.
    private func plan(
        _ request: Request,
        upload: MultipartUploads.Upload,
        document: CompletedParts,
        app: MediaApp
    ) async throws -> JoinPlan {
        let selected = try document.select(from: upload)
        try Self.checkType(request, upload: upload)
        return JoinPlan(
            selected: selected,
            composite: try document.compositeChecksum(of: selected, upload: upload),
            algorithm: upload.checksum?.algorithm ?? PayloadDigests.defaultAlgorithm,
            limit: try await S3Limits.object(at: upload.key, app: app, uploads: self.uploads)
        )
    }

    /// Joins the planned parts into the upload's object, with S3's multipart ETag, the parts' sizes and the
    /// object's checksum (a full-object CRC taken from the bytes as they are joined); the claimed checksum
    /// and the write condition are checked just before the commit.
    ///
    /// - Throws: 404 `NoSuchUpload` when an abort or a reset ended the upload meanwhile, 412 for a condition
    ///   that no longer holds, `ChecksumError.mismatch` for a claim that is not the object's, what
    ///   `UploadReceiver.join` throws.
    private func join(
        _ plan: JoinPlan,
        upload: MultipartUploads.Upload,
        app: MediaApp,
        condition: WriteCondition,
        claim: (algorithm: ChecksumAlgorithm, value: String)?
    ) async throws -> ObjectMetadata {
        let (composite, algorithm) = (plan.composite, plan.algorithm)
        let running: PayloadDigests? = composite == nil ? PayloadDigests(unclaimed: algorithm) : nil
        var observe: (@Sendable (ByteBuffer) -> Void)?
        if let running { observe = { chunk in running.updateChecksum([chunk]) } }
        let etag = CompletedParts.etag(ofParts: plan.selected.map(\.etag))
        let parts = ObjectParts(sizes: plan.selected.map(\.size))
        let (id, key) = (upload.id, upload.key)
        return try await self.uploads.join(
            plan.selected.map { ($0.storeKey, $0.size) },
            into: key,
            app: app,
            limit: plan.limit,
            declaredType: upload.contentType,
            keepsDeclaredType: true,
            extras: upload.extras,
            observe: observe
        ) { [uploads = self.parts.uploads, store = self.uploads.store] _, attributes in
            // An abort or a reset while the parts were joined wins: nothing is stored.
            guard uploads.isCompleting(id) else { throw S3Error.noSuchUpload(id) }
            try await condition.check(store, key: key)
            let checksum: String
            if let composite {
                checksum = composite
            } else {
                checksum = Base64.encode(try running?.verify().checksum ?? [], .standard)
            }
            if let claim, claim.algorithm != algorithm || claim.value != checksum {
                throw ChecksumError.mismatch(claim.algorithm)
            }
            attributes.etag = etag
            attributes.extras[ObjectParts.extra] = parts.extraValue
            attributes.extras[ObjectHeaders.checksumExtra(algorithm.name)] = checksum
        }
    }

    /// The object checksum a CompleteMultipartUpload claims (`x-amz-checksum-*`, `base64-N` for a composite
    /// one), checked once the object's is known.
    ///
    /// - Throws: 400 `InvalidRequest` for two claims.
    private static func objectClaim(_ request: Request) throws -> (algorithm: ChecksumAlgorithm, value: String)? {
        let claims = request.headers.compactMap { field in
            ChecksumAlgorithm(headerName: field.name.canonicalName).map { ($0, field.value) }
        }
        guard claims.count <= 1 else {
            throw PayloadDigests.invalidRequest(
                "Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed."
            )
        }
        return claims.first.map { (algorithm: $0.0, value: $0.1.trimmingCharacters(in: .whitespaces)) }
    }

    /// A CompleteMultipartUpload's `x-amz-checksum-type`, which must be the upload's.
    ///
    /// - Throws: 400 `BadDigest` when it is not, as S3's API reference says.
    private static func checkType(_ request: Request, upload: MultipartUploads.Upload) throws(S3Error) {
        guard let named = request.headers[MultipartChecksum.typeHeader] else { return }
        let kind = upload.checksum?.kind ?? .fullObject
        guard named.trimmingCharacters(in: .whitespaces).uppercased() != kind.rawValue else { return }
        throw S3Error(
            status: .badRequest,
            code: "BadDigest",
            message:
                "The x-amz-checksum-type you specified, \(named.prefix(32)), is not the upload's: \(kind.rawValue)."
        )
    }

    /// AbortMultipartUpload (`DELETE /{app}/{key}?uploadId=`): 204, the upload and its parts gone.
    func abort(_ request: Request, context: AppRequestContext) async throws -> Response {
        let authenticated = try await S3Authenticator.object(
            request,
            context: context,
            apps: self.apps,
            now: self.clock.unixSeconds
        )
        let (key, query, source) = (authenticated.key, authenticated.query, authenticated.source)
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            await self.parts.freeExpired()
            await self.parts.delete(try self.parts.uploads.abort(query.first("uploadId") ?? "", key: key))
            return Response(status: .noContent)
        }
    }

    /// ListParts (`GET /{app}/{key}?uploadId=`): the parts by number, after `part-number-marker`, at most
    /// `max-parts` (1,000 at most).
    func listParts(_ request: Request, context: AppRequestContext) async throws -> Response {
        let authenticated = try await S3Authenticator.object(
            request,
            context: context,
            apps: self.apps,
            now: self.clock.unixSeconds
        )
        let (app, key, query, source) = (
            authenticated.app, authenticated.key, authenticated.query, authenticated.source
        )
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            let id = query.first("uploadId") ?? ""
            let maxParts = try Self.count(query, "max-parts")
            let marker = try Self.count(query, "part-number-marker", default: 0)
            await self.parts.freeExpired()
            let upload = try self.parts.uploads.upload(id, key: key, now: self.clock.now)
            let after = upload.parts.values.filter { $0.number > marker }.sorted { $0.number < $1.number }
            let page = after.prefix(maxParts)
            var xml = S3XML()
            xml.element("ListPartsResult", root: true) { xml in
                xml.element("Bucket", app.id)
                xml.element("Key", upload.bucketKey)
                xml.element("UploadId", upload.id)
                xml.owner(app)
                xml.element("StorageClass", "STANDARD")
                if let checksum = upload.checksum {
                    xml.element("ChecksumAlgorithm", checksum.algorithm.name)
                    xml.element("ChecksumType", checksum.kind.rawValue)
                }
                xml.element("PartNumberMarker", String(marker))
                if let last = page.last { xml.element("NextPartNumberMarker", String(last.number)) }
                xml.element("MaxParts", String(maxParts))
                xml.element("IsTruncated", after.count > page.count ? "true" : "false")
                for part in page {
                    xml.element("Part") { xml in
                        xml.element("PartNumber", String(part.number))
                        xml.element("LastModified", BucketController.timestamp(part.lastModified))
                        xml.element("ETag", part.etag)
                        xml.element("Size", String(part.size))
                        if let checksum = upload.checksum, let value = part.checksum {
                            xml.element("Checksum" + checksum.algorithm.name, value)
                        }
                    }
                }
            }
            return xml.response()
        }
    }

    /// ListMultipartUploads (`GET /{app}?uploads`, authenticated by the bucket route): the app's open uploads
    /// by key, then by when they started; `prefix`, `key-marker` with `upload-id-marker`, `max-uploads`,
    /// `encoding-type=url`.
    func listUploads(_ app: MediaApp, query: QueryItems) async throws -> Response {
        let prefix = query.first("prefix") ?? ""
        let keyMarker = query.first("key-marker") ?? ""
        let idMarker = query.first("upload-id-marker") ?? ""
        let maxUploads = try Self.count(query, "max-uploads")
        let encodeURL = query.first("encoding-type") == "url"
        await self.parts.freeExpired()
        let open = self.parts.uploads.uploads(of: app.id).filter { $0.bucketKey.hasBytePrefix(prefix) }
        // After the marker key; with an upload id of that key, after that upload (later ones of the key next).
        let start: Int
        if keyMarker.isEmpty {
            start = 0
        } else if !idMarker.isEmpty,
            let marked = open.firstIndex(where: { $0.id == idMarker && $0.bucketKey.isByteEqual(keyMarker) })
        {
            start = marked + 1
        } else {
            start = open.firstIndex { ObjectKey.listedBefore(keyMarker, $0.bucketKey) } ?? open.count
        }
        let after = open[start...]
        let page = after.prefix(maxUploads)
        // S3 encodes the key marker, next key marker, prefix and keys, as in a listing.
        let shown = { (text: String) in encodeURL ? PercentEncoding.formEncodedKey(text) : text }
        var xml = S3XML()
        xml.element("ListMultipartUploadsResult", root: true) { xml in
            xml.element("Bucket", app.id)
            xml.element("KeyMarker", shown(keyMarker))
            xml.element("UploadIdMarker", idMarker)
            if let last = page.last {
                xml.element("NextKeyMarker", shown(last.bucketKey))
                xml.element("NextUploadIdMarker", last.id)
            }
            if !prefix.isEmpty { xml.element("Prefix", shown(prefix)) }
            if encodeURL { xml.element("EncodingType", "url") }
            xml.element("MaxUploads", String(maxUploads))
            xml.element("IsTruncated", after.count > page.count ? "true" : "false")
            for upload in page {
                xml.element("Upload") { xml in
                    xml.element("Key", shown(upload.bucketKey))
                    xml.element("UploadId", upload.id)
                    xml.element("Initiator") { xml in
                        xml.element("ID", app.id)
                        xml.element("DisplayName", app.id)
                    }
                    xml.owner(app)
                    xml.element("StorageClass", "STANDARD")
                    xml.element("Initiated", BucketController.timestamp(upload.initiated))
                    if let checksum = upload.checksum {
                        xml.element("ChecksumAlgorithm", checksum.algorithm.name)
                        xml.element("ChecksumType", checksum.kind.rawValue)
                    }
                }
            }
        }
        return xml.response()
    }

    /// A count parameter (`max-parts`, `max-uploads`, a marker): a non-negative integer, at most 1,000 for
    /// a page size.
    ///
    /// - Throws: 400 `InvalidArgument` for anything else.
    private static func count(_ query: QueryItems, _ name: String, default value: Int? = nil) throws(S3Error) -> Int {
        guard let text = query.first(name) else { return value ?? Self.maximumListed }
        guard let number = Int(text), number >= 0 else {
            throw S3Error(
                status: .badRequest,
                code: "InvalidArgument",
                message: "Provided \(name) not an integer or within integer range",
                details: [("ArgumentName", name), ("ArgumentValue", text)]
            )
        }
        return value == nil ? min(number, Self.maximumListed) : number
    }
}
