import MockCDNCore
import NIOCore

/// The one funnel of upload events: the server's store, wrapped, so that every write and delete of an app's
/// object, whichever route makes it, is emitted once it is done (`ObjectEvents.emit`). The route names the
/// event (`EventCause`); MockCDN's own keys (`_mockcdn/...`) and `EventCause.silently` work emit nothing.
/// A reset (`removeAll`) emits an `ObjectRemoved:Delete` per removed object, up to
/// `ObjectEvents.maximumResetRecords` (video posters, MockCDN's own, emit none).
struct EventingObjectStore: ObjectStore {
    /// The store itself.
    let base: any ObjectStore
    /// Where the changes are emitted.
    let events: ObjectEvents

    /// Stores through `base`, then emits the route's `ObjectCreated:*` (`EventCause.creation`).
    func put<Body: AsyncSequence>(
        _ key: ObjectKey,
        body: Body,
        maxBytes: Int,
        digest: ObjectIntake.Digest,
        attributes: (ObjectIntake.Summary) async throws -> ObjectAttributes
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer {
        let stored = try await self.base.put(
            key,
            body: body,
            maxBytes: maxBytes,
            digest: digest,
            attributes: attributes
        )
        if !EventCause.silent { self.events.emit(EventCause.creation, key: key, object: stored) }
        return stored
    }

    /// The base store's metadata.
    func metadata(for key: ObjectKey) async throws -> ObjectMetadata? {
        try await self.base.metadata(for: key)
    }

    /// Reads from the base store.
    func read(_ key: ObjectKey, range: Range<Int>?, into consumer: (ByteBuffer) async throws -> Void) async throws {
        try await self.base.read(key, range: range, into: consumer)
    }

    /// Opens a read in the base store.
    func open(_ key: ObjectKey, range: Range<Int>?) async throws -> OpenedRead {
        try await self.base.open(key, range: range)
    }

    /// Changes metadata in the base store, then emits the route's event when it names one (`EventCause.change`:
    /// PutObjectTagging's `ObjectTagging:Put`); MockCDN's own edits emit none.
    @discardableResult
    func updateMetadata(_ key: ObjectKey, _ change: (inout ObjectMetadata) -> Void) async throws -> ObjectMetadata {
        let changed = try await self.base.updateMetadata(key, change)
        if let name = EventCause.change, !EventCause.silent { self.events.emit(name, key: key, object: changed) }
        return changed
    }

    /// Deletes through `base`, then emits `ObjectRemoved:Delete` when there was an object.
    @discardableResult
    func delete(_ key: ObjectKey) async throws -> Bool {
        let removed = try await self.base.delete(key)
        if removed, !EventCause.silent { self.events.emit(.delete, key: key, object: nil) }
        return removed
    }

    /// The base store's listing.
    func list(prefix: String) async throws -> [ObjectMetadata] {
        try await self.base.list(prefix: prefix)
    }

    /// The base store's page of keys.
    func keys(prefix: String, after: String?, limit: Int) async throws -> [ObjectKey] {
        try await self.base.keys(prefix: prefix, after: after, limit: limit)
    }

    /// The base store's resident bytes.
    func resident(_ key: ObjectKey) async throws -> (metadata: ObjectMetadata, bytes: ByteBuffer)? {
        try await self.base.resident(key)
    }

    /// The base store's resident bytes, without waiting.
    func residentNow(_ key: ObjectKey) -> (metadata: ObjectMetadata, bytes: ByteBuffer)? {
        self.base.residentNow(key)
    }

    /// Empties the base store (its own way), then emits a delete per removed object of an app.
    func removeAll() async throws {
        let removed = EventCause.silent ? [] : try await self.base.list(prefix: "")
        try await self.base.removeAll()
        var emitted = 0
        for object in removed where emitted < ObjectEvents.maximumResetRecords {
            // Posters go with their videos: MockCDN's own, like the `_mockcdn/` keys.
            guard object.extras["poster_of"] == nil, let key = try? ObjectKey(object.key),
                self.events.apps.app(id: String(key.rawValue.prefix { $0 != "/" })) != nil
            else { continue }
            self.events.emit(.delete, key: key, object: nil)
            emitted += 1
        }
    }
}
