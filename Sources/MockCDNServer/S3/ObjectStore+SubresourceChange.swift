import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore

extension ObjectStore {
    /// Changes an object's metadata for a sub-resource write (its ACL, its tags): the bytes, ETag and
    /// Last-Modified stay, and the change is announced as `event`, not as an object created.
    ///
    /// - Parameters:
    ///   - key: the object.
    ///   - event: the event the change emits (`ObjectAcl:Put`, `ObjectTagging:Put`, ...).
    ///   - edit: the change.
    /// - Throws: 404 `NoSuchKey` when there is no object (or it was deleted meanwhile); the store's errors.
    func changeSubresource(
        of key: ObjectKey,
        as event: ObjectEventName,
        _ edit: @escaping @Sendable (inout ObjectMetadata) -> Void
    ) async throws {
        guard try await self.metadata(for: key) != nil else { throw S3Error.noSuchKey() }
        do {
            try await EventCause.changing(as: event) { try await self.updateMetadata(key, edit) }
        } catch let error as MockCDNError where error == .objectNotFound {
            // Deleted between the two looks.
            throw S3Error.noSuchKey()
        }
    }
}

extension PayloadDigests {
    /// Checks the checksum a document's request claims (`Content-MD5`, `x-amz-checksum-*`): botocore sends
    /// one, as S3's model requires; a claim is checked, and none is required unless `missing` is given. A
    /// large document is hashed off the cooperative pool (`Digest.taken`).
    ///
    /// - Parameters:
    ///   - body: the document, read whole.
    ///   - request: its request.
    ///   - query: its query.
    ///   - missing: the refusal of a request that claims no checksum, for an operation S3 takes only with one
    ///     (DeleteObjects); nil where none is required.
    /// - Throws: `missing`; S3's refusal of a claim the body does not match.
    static func checkDocument(
        _ body: ByteBuffer,
        of request: Request,
        query: QueryItems,
        missing: S3Error? = nil
    ) async throws {
        let digests = try PayloadDigests(request, query: query, trailers: false)
        if let missing, !digests.claimsAny { throw missing }
        try await Digest.taken(over: body.readableBytes) {
            digests.update(body)
            _ = try digests.verify()
        }
    }
}
