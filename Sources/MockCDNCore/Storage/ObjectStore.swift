import NIOCore

/// Where objects live: in memory (the default) or on disk (`--data-dir`).
///
/// Writes stream: an object becomes visible only once its whole body arrived, and a write that fails
/// midway leaves nothing behind. Reads stream too, so a large object never has to fit in memory.
public protocol ObjectStore: Sendable {
    /// Stores `body` under `key`, replacing any object already there once the new one is complete.
    ///
    /// - Parameters:
    ///   - key: where to store it.
    ///   - body: the bytes, as they arrive.
    ///   - maxBytes: the most bytes accepted; one more and the write stops.
    ///   - digest: whether the record gets the body's SHA-256 (`.etagOnly`: the attributes give the ETag).
    ///   - attributes: content type, owner and extras to keep with it, asked for once the whole body has
    ///     arrived and before the object is committed, with the body's size and digest, so that what was
    ///     learnt from the bytes (an image's size, a checksum) is written with it, once, and a body that
    ///     breaks a promise (a signed payload hash) is refused before it replaces anything.
    /// - Returns: the stored object's metadata.
    /// - Throws: `MockCDNError.objectTooLarge` past `maxBytes`, `.insufficientStorage` when the store's byte
    ///   budget has no room left, or whatever `body` or `attributes` throws; nothing is stored.
    func put<Body: AsyncSequence>(
        _ key: ObjectKey,
        body: Body,
        maxBytes: Int,
        digest: ObjectIntake.Digest,
        attributes: (ObjectIntake.Summary) async throws -> ObjectAttributes
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer

    /// The metadata of the object under `key`, or nil when there is none.
    func metadata(for key: ObjectKey) async throws -> ObjectMetadata?

    /// Streams the object (or `range` of it) to `consumer`, chunk by chunk.
    ///
    /// - Parameters:
    ///   - key: the object.
    ///   - range: byte offsets to read, within the object; nil for all of it.
    ///   - consumer: called with each chunk in order.
    /// - Throws: `MockCDNError.objectNotFound`, `.rangeNotSatisfiable`, `.storageFailure` when the stored
    ///   bytes cannot be read, or what `consumer` throws.
    func read(
        _ key: ObjectKey,
        range: Range<Int>?,
        into consumer: (ByteBuffer) async throws -> Void
    ) async throws

    /// Starts reading the object (or `range` of it) and answers once the store has found the bytes, for a
    /// reader to stream when it has committed to an answer.
    ///
    /// - Parameters:
    ///   - key: the object.
    ///   - range: byte offsets to read, within the object; nil for all of it.
    /// - Returns: the started read.
    /// - Throws: `MockCDNError.objectNotFound` (the bytes are gone: a store shared with other instances may
    ///   have had the object deleted or replaced since its metadata was read), `.rangeNotSatisfiable`,
    ///   `.storageFailure`.
    func open(_ key: ObjectKey, range: Range<Int>?) async throws -> OpenedRead

    /// Changes an object's metadata (owner, extras); its bytes, size and hashes stay as they are.
    ///
    /// - Parameters:
    ///   - key: the object.
    ///   - change: edits the metadata.
    /// - Returns: the new metadata.
    /// - Throws: `MockCDNError.objectNotFound`.
    @discardableResult
    func updateMetadata(
        _ key: ObjectKey,
        _ change: (inout ObjectMetadata) -> Void
    ) async throws -> ObjectMetadata

    /// Removes the object.
    ///
    /// - Returns: true when there was one.
    @discardableResult
    func delete(_ key: ObjectKey) async throws -> Bool

    /// Every object whose key starts with `prefix`, ordered by key.
    func list(prefix: String) async throws -> [ObjectMetadata]

    /// Up to `limit` keys that start with `prefix` and come after `after`, in S3's listing order (the keys'
    /// UTF-8 bytes): a page of a listing. The memory and disk stores keep their keys in that order
    /// (`OrderedIndex`), so a page costs the page, not the bucket; other stores sort `list(prefix:)`.
    ///
    /// - Parameters:
    ///   - prefix: the keys' common start; empty for every key.
    ///   - after: only keys after this one (which need not exist); nil for the first.
    ///   - limit: the most keys returned.
    /// - Returns: the keys, in order.
    func keys(prefix: String, after: String?, limit: Int) async throws -> [ObjectKey]

    /// The object's metadata and all of its bytes, read together (one version of it), when the store holds
    /// its bytes in memory: a read can then answer with them in one write instead of streaming. Nil when the
    /// store does not keep bytes in memory, or has no such object.
    func resident(_ key: ObjectKey) async throws -> (metadata: ObjectMetadata, bytes: ByteBuffer)?

    /// What `resident(_:)` answers, without waiting: for a store that holds its objects in memory behind a
    /// lock, so that a read can be answered on the event loop that received it (the server's fast reads).
    /// Nil for a store that would have to wait for its answer, whatever it holds.
    func residentNow(_ key: ObjectKey) -> (metadata: ObjectMetadata, bytes: ByteBuffer)?

    /// Removes every object (`/_mockcdn/reset`); a requirement, so a store's own way (the S3 store also aborts
    /// open multipart uploads) is the one a reset through `any ObjectStore` runs.
    func removeAll() async throws
}

extension ObjectStore {
    /// A store that reads its own memory or disk has nothing to find first: the read starts when streamed.
    public func open(_ key: ObjectKey, range: Range<Int>?) async throws -> OpenedRead {
        OpenedRead { consumer in try await self.read(key, range: range, into: consumer) }
    }

    /// Not in memory: reads stream through `read(_:range:into:)`.
    public func resident(_ key: ObjectKey) async throws -> (metadata: ObjectMetadata, bytes: ByteBuffer)? { nil }

    /// Not at hand: every read waits for the store.
    public func residentNow(_ key: ObjectKey) -> (metadata: ObjectMetadata, bytes: ByteBuffer)? { nil }

    /// Stores `body` under `key` with its SHA-256 in the record.
    ///
    /// - Returns: the stored object's metadata.
    /// - Throws: what `put(_:body:maxBytes:digest:attributes:)` throws.
    public func put<Body: AsyncSequence>(
        _ key: ObjectKey,
        body: Body,
        maxBytes: Int,
        attributes: (ObjectIntake.Summary) async throws -> ObjectAttributes
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer {
        try await self.put(key, body: body, maxBytes: maxBytes, digest: .sha256, attributes: attributes)
    }

    /// Stores `body` under `key` with attributes known up front.
    ///
    /// - Parameters:
    ///   - key: where to store it.
    ///   - body: the bytes, as they arrive.
    ///   - attributes: content type, owner and extras to keep with it.
    ///   - maxBytes: the most bytes accepted.
    /// - Returns: the stored object's metadata.
    /// - Throws: what `put(_:body:maxBytes:digest:attributes:)` throws.
    public func put<Body: AsyncSequence>(
        _ key: ObjectKey,
        body: Body,
        attributes: ObjectAttributes,
        maxBytes: Int
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer {
        try await self.put(key, body: body, maxBytes: maxBytes) { _ in attributes }
    }

    /// Removes every object (`/_mockcdn/reset`).
    public func keys(prefix: String, after: String?, limit: Int) async throws -> [ObjectKey] {
        let keys = try await self.list(prefix: prefix).map(\.key)
            .filter { key in after.map { ObjectKey.listedBefore($0, key) } ?? true }
            .sorted { ObjectKey.listedBefore($0, $1) }
            .prefix(limit)
        return try keys.map { try ObjectKey($0) }
    }

    public func removeAll() async throws {
        for object in try await self.list(prefix: "") { try await self.delete(try ObjectKey(object.key)) }
    }

    /// Reads a whole object (or a range) into one buffer; for small objects and tests.
    ///
    /// - Parameters:
    ///   - key: the object.
    ///   - range: byte offsets to read; nil for all of it.
    /// - Returns: the bytes.
    public func collect(_ key: ObjectKey, range: Range<Int>? = nil) async throws -> ByteBuffer {
        var result = ByteBuffer()
        try await self.read(key, range: range) { chunk in
            var chunk = chunk
            result.writeBuffer(&chunk)
        }
        return result
    }
}

extension Range where Bound == Int {
    /// Checks the range lies within an object of `size` bytes.
    public func validated(within size: Int) throws -> Range<Int> {
        guard self.lowerBound >= 0, self.upperBound <= size else { throw MockCDNError.rangeNotSatisfiable }
        return self
    }
}
