import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore

/// CopyObject (`PUT /{app}/{key}` with `x-amz-copy-source: /{app}/{source key}`): the source's bytes stored
/// again under the key, within one app (its keys sign for its own objects only), once the source meets the
/// request's `x-amz-copy-source-if-*` conditions. `x-amz-metadata-directive: COPY` (the default) keeps the
/// source's type, stored headers and metadata; `REPLACE` takes the request's. The copy is one part, as on S3:
/// a source joined from parts gives a copy without them, whose ETag is the MD5 of its bytes. The copy's ACL is
/// the request's (`private` when it names none: S3 never copies an ACL); its tags are the source's
/// (`x-amz-tagging-directive: COPY`, the default, with any `x-amz-tagging` ignored as S3 ignores it) or the
/// request's `x-amz-tagging` (`REPLACE`). The answer is S3's `CopyObjectResult`.
struct ObjectCopier {
    static let sourceHeader = HTTPField.Name("x-amz-copy-source")!
    static let directiveHeader = HTTPField.Name("x-amz-metadata-directive")!

    let store: any ObjectStore
    /// Where the copy's `ObjectCreated:Copy` is emitted once it is stored.
    let events: ObjectEvents
    let clock: MockClock

    /// Copies the object `request` names into `key`.
    ///
    /// - Parameters:
    ///   - request: the PUT, with `x-amz-copy-source`.
    ///   - app: the bucket's app.
    ///   - key: the copy's key.
    /// - Returns: the `CopyObjectResult`.
    /// - Throws: 400 `InvalidArgument` for a source that cannot be read or a directive that is neither,
    ///   403 `AccessDenied` for another app's object, 404 `NoSuchKey`, 412 `PreconditionFailed` for a source
    ///   condition that does not hold, 400 `InvalidRequest` for a copy onto itself that changes nothing; what
    ///   `WriteAccess` throws for the ACL and tags named.
    func copy(_ request: Request, app: MediaApp, key: ObjectKey) async throws -> Response {
        let sourceKey = try Self.source(of: request, app: app)
        let directive = request.headers[Self.directiveHeader]?.uppercased() ?? "COPY"
        guard directive == "COPY" || directive == "REPLACE" else {
            throw S3Error(
                status: .badRequest,
                code: "InvalidArgument",
                message: "Unknown metadata directive.",
                details: [("ArgumentName", "x-amz-metadata-directive"), ("ArgumentValue", directive)]
            )
        }
        let access = try WriteAccess(request.headers)
        let tagging = request.headers[ObjectTags.directiveHeader]?.uppercased() ?? "COPY"
        guard tagging == "COPY" || tagging == "REPLACE" else { throw S3Error.invalidTaggingDirective(tagging) }
        guard let source = try await self.store.metadata(for: sourceKey) else { throw S3Error.noSuchKey() }
        try CopySourceCondition(request).check(source, now: self.clock.now)
        if sourceKey == key, directive == "COPY" {
            throw S3Error(
                status: .badRequest,
                code: "InvalidRequest",
                message: "This copy request is illegal because it is trying to copy an object to itself without "
                    + "changing the object's metadata, storage class, website redirect location or encryption "
                    + "attributes."
            )
        }
        var attributes = ObjectAttributes(
            contentType: source.contentType,
            owner: source.owner,
            extras: source.extras,
            created: self.clock.now,
            etag: source.etag
        )
        if directive == "REPLACE" {
            attributes.contentType = request.headers[.contentType] ?? source.contentType
            attributes.extras = source.extras.filter { !ObjectHeaders.isStored($0.key) }
                .merging(try ObjectHeaders.extras(from: request)) { _, new in new }
        }
        attributes.extras[ObjectParts.extra] = nil
        WriteAccess(acl: access.acl, tags: tagging == "REPLACE" ? access.tags : ObjectTags(of: source))
            .apply(to: &attributes.extras)
        let body = StoredBody(store: self.store, key: sourceKey, size: source.size)
        let copied: ObjectMetadata
        if source.extras[ObjectParts.extra] == nil {
            copied = try await self.store.put(key, body: body, attributes: attributes, maxBytes: source.size)
        } else {
            // The source's multipart ETag names parts the copy does not have: the copy's is its bytes' MD5.
            let digests = PayloadDigests()
            copied = try await self.store.put(
                key,
                body: PayloadBody(base: body, chunked: nil, digests: digests),
                maxBytes: source.size
            ) { [attributes] _ in
                var sealed = attributes
                try digests.seal(&sealed)
                return sealed
            }
        }
        self.events.emit(.copy, key: key, object: copied)
        var xml = S3XML()
        xml.element("CopyObjectResult", root: true) { xml in
            xml.element("LastModified", BucketController.timestamp(copied.created))
            xml.element("ETag", copied.etag)
        }
        return xml.response()
    }

    /// The source's key, from `x-amz-copy-source` (`/bucket/key` or `bucket/key`, percent-encoded; a
    /// `?versionId=` ignored), within the app.
    ///
    /// - Throws: 400 `InvalidArgument` for a source that names no bucket and key, 403 `AccessDenied` for
    ///   another app's object, `MockCDNError.invalidObjectKey` for a key that is none.
    static func source(of request: Request, app: MediaApp) throws -> ObjectKey {
        let header = request.headers[Self.sourceHeader] ?? ""
        var path = Substring(header)
        if let query = path.firstIndex(of: "?") { path = path[..<query] }
        if path.hasPrefix("/") { path = path.dropFirst() }
        guard let decoded = PercentEncoding.decode(path.utf8), let slash = decoded.firstIndex(of: "/") else {
            throw S3Error(
                status: .badRequest,
                code: "InvalidArgument",
                message: "Copy Source must mention the source bucket and key: sourcebucket/sourcekey",
                details: [("ArgumentName", "x-amz-copy-source"), ("ArgumentValue", String(header.prefix(1024)))]
            )
        }
        guard decoded[..<slash] == app.id else {
            throw AccessDenied("Access Denied: an app's keys copy only the app's own objects")
        }
        return try ObjectKey(decoded)
    }
}
