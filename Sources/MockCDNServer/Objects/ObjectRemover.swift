import MockCDNCore

/// Deletes a stored object with everything MockCDN made from it: its resized variants and, for a video, its
/// poster, and emits its `ObjectRemoved:Delete`. Every delete route uses it (Stream's, S3's).
struct ObjectRemover: Sendable {
    let store: any ObjectStore
    let events: ObjectEvents
    let variants: VariantCache
    let posters: VideoPosters

    /// Deletes `key`; nothing happens when there is no such object.
    ///
    /// - Parameters:
    ///   - key: the object.
    ///   - metadata: its metadata when the caller read it already (nil: read here).
    /// - Returns: whether an object was there.
    /// - Throws: what the store throws.
    @discardableResult
    func remove(_ key: ObjectKey, metadata: ObjectMetadata? = nil) async throws -> Bool {
        var found = metadata
        if found == nil { found = try await self.store.metadata(for: key) }
        guard let found else { return false }
        // Emitted when this call removed it: a delete that lost a race to another emits nothing.
        if try await self.store.delete(key) { self.events.emit(.delete, key: key, object: nil) }
        await self.variants.drop(object: key.rawValue)
        await self.posters.deletePoster(of: found)
        return true
    }
}
