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
    ///   - events: where it is emitted.
    ///   - edit: the change.
    /// - Throws: 404 `NoSuchKey` when there is no object (or it was deleted meanwhile); the store's errors.
    func changeSubresource(
        of key: ObjectKey,
        as event: ObjectEventName,
        emittingTo events: ObjectEvents,
        _ edit: @escaping @Sendable (inout ObjectMetadata) -> Void
    ) async throws {
        guard try await self.metadata(for: key) != nil else { throw S3Error.noSuchKey() }
        do {
            let changed = try await self.updateMetadata(key, edit)
            events.emit(event, key: key, object: changed)
        } catch let error as MockCDNError where error == .objectNotFound {
            // Deleted between the two looks.
            throw S3Error.noSuchKey()
        }
    }
}
