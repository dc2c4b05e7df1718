import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore

/// PutObjectTagging, GetObjectTagging and DeleteObjectTagging (`PUT|GET|DELETE /{app}/{key}?tagging`): an
/// object's tags replaced by a `Tagging` document, read back, or removed. A change of tags is no write of the
/// object: its bytes, ETag and Last-Modified stay, and the event is S3's `ObjectTagging:Put` or
/// `ObjectTagging:Delete`, never `ObjectCreated`.
struct ObjectTaggingController {
    let apps: AppRegistry
    let store: any ObjectStore
    /// Where a change's event is emitted.
    let events: ObjectEvents
    let clock: MockClock

    /// PutObjectTagging: 200 with no body once the tags are kept.
    ///
    /// - Parameters:
    ///   - request: the `PUT ?tagging`.
    ///   - context: its context.
    /// - Returns: the answer.
    /// - Throws: 404 `NoSuchKey`; 400 `BadDigest` for a claimed checksum the document does not have;
    ///   400 `MalformedXML` for a document that is no `Tagging`; what
    ///   `ObjectTags.checked()` throws (`InvalidTag`, `BadRequest` past 10 tags). Nothing changes on a refusal.
    func put(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await S3XML.document(of: request, upTo: ObjectTags.documentLimits.maximumBytes)
        let authenticated = try await S3Authenticator.object(
            request,
            context: context,
            apps: self.apps,
            now: self.clock.unixSeconds,
            payload: body
        )
        return try await CredentialNote.answer(authorisedBy: authenticated.source, request: request, context: context) {
            // botocore sends a checksum of the document (S3's model requires one); a claimed one is checked.
            try await PayloadDigests.checkDocument(body, of: request, query: authenticated.query)
            let tags = try await ObjectTags.read(body)
            try await self.store.changeSubresource(of: authenticated.key, as: .taggingPut, emittingTo: self.events) {
                $0.extras[ObjectTags.extra] = tags.extraValue
            }
            return Response(status: .ok)
        }
    }

    /// GetObjectTagging: the object's `Tagging`, an empty `TagSet` for an object without tags.
    ///
    /// - Parameters:
    ///   - request: the `GET ?tagging` (or HEAD: the same answer without a body).
    ///   - context: its context.
    /// - Returns: the document.
    /// - Throws: 404 `NoSuchKey`, and what the credential's check throws.
    func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let authenticated = try await S3Authenticator.object(
            request,
            context: context,
            apps: self.apps,
            now: self.clock.unixSeconds
        )
        return try await CredentialNote.answer(authorisedBy: authenticated.source, request: request, context: context) {
            guard let object = try await self.store.metadata(for: authenticated.key) else {
                throw S3Error.noSuchKey()
            }
            var xml = S3XML()
            xml.element("Tagging", root: true) { xml in
                xml.element("TagSet") { xml in
                    for (key, value) in ObjectTags(of: object).pairs {
                        xml.element("Tag") { xml in
                            xml.element("Key", key)
                            xml.element("Value", value)
                        }
                    }
                }
            }
            return xml.response(head: request.method == .head)
        }
    }

    /// DeleteObjectTagging: 204, the object without tags.
    ///
    /// - Parameters:
    ///   - request: the `DELETE ?tagging`.
    ///   - context: its context.
    /// - Returns: the answer.
    /// - Throws: 404 `NoSuchKey`, and what the credential's check throws.
    func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let authenticated = try await S3Authenticator.object(
            request,
            context: context,
            apps: self.apps,
            now: self.clock.unixSeconds
        )
        return try await CredentialNote.answer(authorisedBy: authenticated.source, request: request, context: context) {
            try await self.store.changeSubresource(of: authenticated.key, as: .taggingDelete, emittingTo: self.events) {
                $0.extras[ObjectTags.extra] = nil
            }
            return Response(status: .noContent)
        }
    }
}
