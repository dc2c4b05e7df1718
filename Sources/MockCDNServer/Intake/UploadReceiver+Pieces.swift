import Foundation
import Hummingbird
import MockCDNCore
import NIOCore

/// A file that arrives in pieces (an S3 multipart upload's parts): each piece streams into the store on its
/// own, within the size limit and under the stall watch; the app's type policy meets the file's first bytes
/// when the pieces are joined into the object, which streams through the same `store` as every upload.
extension UploadReceiver {
    /// The app's policy for an object at `key`: the image policy under `images/`, the file policy elsewhere.
    ///
    /// - Parameters:
    ///   - key: the object's key (`{app}/...`).
    ///   - app: the app.
    /// - Returns: the kind, its settings and its size limit.
    func policy(
        for key: ObjectKey,
        app: MediaApp
    ) async throws -> (kind: UploadPolicy.Kind, config: UploadConfig, limit: Int) {
        let kind = Self.kind(of: key)
        let config = try await self.state.uploadConfig(kind, app: app)
        return (kind, config, UploadPolicy.sizeLimit(config))
    }

    /// Stores pieces kept in the store, one after the other, as one object: within `limit` (checked on their
    /// sizes before a byte is read), and under the app's type policy on the first bytes, as `store` applies
    /// it to every upload. Reads one slice at a time, never the whole.
    ///
    /// - Parameters:
    ///   - pieces: the pieces' keys and sizes, in order.
    ///   - key: the object's key.
    ///   - app: the app that receives it.
    ///   - limit: the most bytes the object may have.
    ///   - declaredType: the type the client declared for the object.
    ///   - keepsDeclaredType: store the declared type when the bytes show none, whatever it is (S3's rule).
    ///   - extras: metadata stored with it.
    ///   - observe: sees each slice as it is stored (S3 takes a multipart object's full-object checksum so).
    ///   - seal: the last check before commit; may add to the attributes (the object's ETag).
    /// - Returns: the stored object.
    /// - Throws: `UploadFailure` (`.tooLarge`, `.refused`, `.unavailable` after a reset), what `seal` throws,
    ///   or a storage error; nothing is stored then.
    func join(
        _ pieces: [(key: ObjectKey, size: Int)],
        into key: ObjectKey,
        app: MediaApp,
        limit: Int,
        declaredType: String?,
        keepsDeclaredType: Bool = false,
        extras: [String: String],
        observe: (@Sendable (ByteBuffer) -> Void)? = nil,
        seal: @escaping @Sendable (ObjectIntake.Summary, inout ObjectAttributes) async throws -> Void
    ) async throws -> ObjectMetadata {
        let (kind, config, _) = try await self.policy(for: key, app: app)
        guard pieces.reduce(0, { $0 + $1.size }) <= limit else { throw UploadFailure.tooLarge(limit: limit) }
        let epoch = self.epoch.current
        let body = StoredPieces(
            pieces.map { StoredBody(store: self.store, key: $0.key, size: $0.size) },
            observe: observe
        )
        do {
            let upload = IncomingUpload(
                name: key.rawValue.split(separator: "/").last.map(String.init),
                declaredType: declaredType,
                keepsDeclaredType: keepsDeclaredType,
                key: { _ in key },
                kind: kind,
                config: config,
                limit: limit,
                extras: extras,
                allowsEmpty: true,
                seal: { summary, attributes in
                    // Checked before the commit: an object a reset overtook is never stored.
                    try self.checkEpoch(epoch)
                    try await seal(summary, &attributes)
                },
                event: .completeMultipartUpload
            )
            return try await self.store(upload, body: body)
        } catch {
            throw Self.refusal(error, limit: limit)
        }
    }
}
