import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore

/// UploadPart (`PUT /{app}/{key}?partNumber=N&uploadId=ID`) and UploadPartCopy (the same with
/// `x-amz-copy-source`, and `x-amz-copy-source-range: bytes=FIRST-LAST` for a piece of the source), with
/// PutObject's credentials: the `Authorization` header (its payload hash, aws-chunked bodies included) or a
/// presigned query, which is how a browser sends parts. A part streams into the store under a key of its own
/// (`MultipartUploads.partPrefix`), at most the app's size limit, its MD5 taken as it passes; a part sent
/// again replaces the earlier one once it is complete. A copied part's source must meet the request's
/// `x-amz-copy-source-if-*` conditions (`CopySourceCondition`). The answer is S3's: 200 with the part's `ETag` (the
/// quoted hex MD5 of its bytes), or a `CopyPartResult`.
struct PartWriter {
    static let copyRangeHeader = HTTPField.Name("x-amz-copy-source-range")!

    let apps: AppRegistry
    let uploads: UploadReceiver
    let parts: PartStore

    func put(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (authenticated, promise) = try await S3Authenticator.objectWithBody(
            request,
            context: context,
            apps: self.apps,
            now: self.parts.clock.unixSeconds
        )
        let (app, key, query) = (authenticated.app, authenticated.key, authenticated.query)
        return try await CredentialNote.answer(authorisedBy: authenticated.source, request: request, context: context) {
            let number = try ObjectParts.number(query.first("partNumber"))
            let id = query.first("uploadId") ?? ""
            await self.parts.freeExpired()
            // Before the body: a part for no upload is refused without reading it.
            let checksum = try self.parts.uploads.upload(id, key: key, now: self.parts.clock.now).checksum
            let storeKey = try MultipartUploads.storeKey(upload: id, part: number)
            let limit = try await S3Limits.request(to: key, app: app, uploads: self.uploads)
            let copying = request.headers[ObjectCopier.sourceHeader] != nil
            let (stored, algorithm) =
                copying
                ? try await self.copy(request, app: app, into: storeKey, limit: limit, checksum: checksum)
                : try await self.receive(
                    request,
                    query: query,
                    app: app,
                    into: storeKey,
                    limit: limit,
                    promise: promise,
                    checksum: checksum
                )
            let part = MultipartUploads.Part(
                number: number,
                storeKey: storeKey,
                etag: stored.etag,
                size: stored.size,
                lastModified: stored.created,
                checksum: stored.extras[ObjectHeaders.checksumExtra(algorithm.name)]
            )
            let replaced: ObjectKey?
            do {
                replaced = try self.parts.uploads.record(part, in: id, key: key, now: self.parts.clock.now)
            } catch {
                // Aborted, completed or reset while the part arrived: it belongs to nothing.
                await self.parts.delete([storeKey])
                throw error
            }
            if let replaced { await self.parts.delete([replaced]) }
            // The part's checksum is answered when the upload has one, as S3 answers it (and SDKs put it in the
            // completion's document).
            let shown = checksum.flatMap { checksum in part.checksum.map { (checksum.algorithm, $0) } }
            guard copying else {
                var headers: HTTPFields = [.eTag: part.etag]
                if let (algorithm, value) = shown, let name = HTTPField.Name(algorithm.headerName) {
                    headers[name] = value
                }
                return Response(status: .ok, headers: headers)
            }
            var xml = S3XML()
            xml.element("CopyPartResult", root: true) { xml in
                xml.element("LastModified", BucketController.timestamp(part.lastModified))
                xml.element("ETag", part.etag)
                if let (algorithm, value) = shown { xml.element("Checksum" + algorithm.name, value) }
            }
            return xml.response()
        }
    }

    /// The part's body, decoded and checked as PutObject decodes and checks it (payload hash, `Content-MD5`,
    /// `x-amz-checksum-*`), into `storeKey`, with its MD5 as its ETag; its checksum claim held to the upload's
    /// (`MultipartChecksum.checkPart`) before a byte is read.
    ///
    /// - Returns: the stored part, and the algorithm of the checksum kept with it.
    private func receive(
        _ request: Request,
        query: QueryItems,
        app: MediaApp,
        into storeKey: ObjectKey,
        limit: Int,
        promise: PayloadPromise,
        checksum: MultipartChecksum?
    ) async throws -> (ObjectMetadata, ChecksumAlgorithm) {
        let payload = try S3Payload(request, query: query, promise: promise, unclaimedAlgorithm: checksum?.algorithm)
        try MultipartChecksum.checkPart(
            claimed: payload.digests.headerClaim?.algorithm ?? payload.digests.trailerAlgorithm,
            upload: checksum
        )
        // The piece's stages: admission, decoding (aws-chunked off, digests taken), then store and seal.
        let admitted = try self.uploads.admitPiece(
            request,
            app: app,
            limit: limit,
            declaredLength: payload.declaredLength
        )
        let body = try payload.body(admitted.wire)
        let stored = try await self.uploads.keepPiece(
            body,
            at: storeKey,
            admitted: admitted,
            digest: payload.digest
        ) { summary, attributes in try payload.seal(summary, &attributes) }
        return (stored, payload.digests.algorithm)
    }

    /// UploadPartCopy: the source object (or the range asked for) stored as the part, once the source meets
    /// the request's `x-amz-copy-source-if-*` conditions (412 `PreconditionFailed` otherwise).
    ///
    /// - Returns: the stored part, and the algorithm of the checksum kept with it: the upload's, else CRC64NVME.
    private func copy(
        _ request: Request,
        app: MediaApp,
        into storeKey: ObjectKey,
        limit: Int,
        checksum: MultipartChecksum?
    ) async throws -> (ObjectMetadata, ChecksumAlgorithm) {
        let sourceKey = try ObjectCopier.source(of: request, app: app)
        let store = self.uploads.store
        guard let source = try await store.metadata(for: sourceKey) else { throw S3Error.noSuchKey() }
        try CopySourceCondition(request).check(source, now: self.parts.clock.now)
        let range = try Self.copyRange(request.headers[Self.copyRangeHeader], size: source.size)
        guard range.count <= limit else { throw UploadFailure.tooLarge(limit: limit) }
        let digests = PayloadDigests(unclaimed: checksum?.algorithm ?? PayloadDigests.defaultAlgorithm)
        let body = PayloadBody(
            base: StoredBody(store: store, key: sourceKey, range: range),
            chunked: nil,
            digests: digests
        )
        let stored = try await store.put(storeKey, body: body, maxBytes: range.count) { _ in
            var attributes = ObjectAttributes(contentType: "application/octet-stream", created: self.parts.clock.now)
            try digests.seal(&attributes)
            return attributes
        }
        return (stored, digests.algorithm)
    }

    /// The bytes `x-amz-copy-source-range: bytes=FIRST-LAST` names (both offsets included), or the whole
    /// source without it.
    ///
    /// - Throws: 400 `InvalidArgument` for another form, or a range outside the source.
    static func copyRange(_ header: String?, size: Int) throws(S3Error) -> Range<Int> {
        guard let header else { return 0..<size }
        let bounds = header.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
        guard bounds.count == 2, bounds[0] == "bytes" else { throw Self.invalidCopyRange(header) }
        let offsets = bounds[1].split(separator: "-", omittingEmptySubsequences: false)
        guard offsets.count == 2, let first = Int(offsets[0]), let last = Int(offsets[1]), first >= 0, first <= last
        else { throw Self.invalidCopyRange(header) }
        guard last < size else {
            throw S3Error(
                status: .badRequest,
                code: "InvalidArgument",
                message: "Range specified is not valid for source object of size: \(size)",
                details: [("ArgumentName", "x-amz-copy-source-range"), ("ArgumentValue", header)]
            )
        }
        return first..<(last + 1)
    }

    private static func invalidCopyRange(_ header: String) -> S3Error {
        S3Error(
            status: .badRequest,
            code: "InvalidArgument",
            message: "The x-amz-copy-source-range value must be of the form bytes=first-last where first and last "
                + "are the zero-based offsets of the first and last bytes to copy",
            details: [("ArgumentName", "x-amz-copy-source-range"), ("ArgumentValue", String(header.prefix(256)))]
        )
    }
}
