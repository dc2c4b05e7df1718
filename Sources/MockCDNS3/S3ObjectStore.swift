import AsyncHTTPClient
import Foundation
import MockCDNCore
import NIOCore

/// Objects in an S3-compatible bucket, so that several MockCDN instances see the same ones
/// (`--store s3://BUCKET[/PREFIX]`).
///
/// Layout under the prefix:
/// - `blobs/KEY/UUID`: an object's bytes, written once and never changed (PutObject, or a multipart upload in
///   parts of `partSize` for bodies larger than one part);
/// - `meta/KEY`: the object's metadata as JSON, naming its blob. Writing it is the commit: until then the new
///   bytes are invisible, and a replaced object's old bytes stay readable until the new record lands.
/// - `long/SHA256` and `blobs/long/SHA256/UUID`: the same for a key whose `meta/` name would be longer than
///   the 1,024 bytes S3 takes (`recordKey`); S3 keys are bytes, so every other key is kept as sent.
///
/// A read is one GET of the blob when the record is in `records` (trusted for `metadataStaleness`), streamed as
/// it arrives; a blob found gone (deleted or replaced by another instance) drops the record, so bytes are never
/// stale. An upload's parts go up `partsInFlight` at a time.
///
/// A body over the limit, a client that goes away, or a store error aborts the multipart upload and removes the
/// blob (`discard`, retried while the store is away): nothing partial is ever visible. A crash between the blob and its record leaves an orphan blob that no
/// record names; `removeAll` sweeps it, and a bucket lifecycle rule (AbortIncompleteMultipartUpload) ends
/// uploads a killed process left open.
public final class S3ObjectStore: ObjectStore {
    public let client: S3Client
    /// Bytes per multipart part (S3's minimum is 5 MiB); a smaller body goes up in one PutObject.
    let partSize: Int
    /// How many records a listing reads at once.
    let listingConcurrency = 8

    /// How many parts of one upload go up at once (each holds a part's memory while it does).
    let partsInFlight: Int
    /// The records read lately, trusted for a bounded time (see `S3RecordCache`).
    let records: S3RecordCache

    /// The record kept at `meta/KEY`.
    struct Record: Codable, Sendable {
        var metadata: ObjectMetadata
        var blob: String
    }

    /// - Parameters:
    ///   - client: the bucket.
    ///   - partSize: bytes per multipart part, at least 5 MiB.
    ///   - partsInFlight: parts of one upload sent at once, at least 1; an upload holds at most one more part
    ///     than this in memory.
    ///   - metadataStaleness: how long a record read is trusted for answers made from metadata alone (zero
    ///     reads the record at every read).
    ///   - recordCapacity: the most records kept.
    ///   - now: the clock records age by.
    public init(
        client: S3Client,
        partSize: Int = 8 << 20,
        partsInFlight: Int = 2,
        metadataStaleness: Duration = .seconds(1),
        recordCapacity: Int = 10_000,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.client = client
        self.partSize = max(partSize, 5 << 20)
        self.partsInFlight = max(partsInFlight, 1)
        self.records = S3RecordCache(staleness: metadataStaleness, capacity: max(recordCapacity, 1), now: now)
    }

    var prefix: String { self.client.location.prefix }

    /// The most bytes of a key S3 takes: a record or blob name past it goes by the key's SHA-256 instead.
    static let maximumNameLength = 1024

    /// Where the record of `key` is kept: `meta/KEY`, or `long/SHA256` when that name would be longer than S3
    /// takes (a key of up to 1,024 bytes within its app, under `meta/`, the app and the store's prefix).
    func recordKey(_ key: ObjectKey) -> String {
        let name = self.prefix + "meta/" + key.rawValue
        guard name.utf8.count > Self.maximumNameLength else { return name }
        return self.prefix + "long/" + Digest.sha256(key.rawValue).hexString
    }

    /// A new blob's name: `blobs/KEY/UUID`, or `blobs/long/SHA256/UUID` as `recordKey` decides (the record
    /// names its blob, so a blob's name is never read back as a key).
    func blobKey(_ key: ObjectKey) -> String {
        let id = "/" + UUID().uuidString.lowercased()
        let name = self.prefix + "blobs/" + key.rawValue + id
        guard name.utf8.count > Self.maximumNameLength else { return name }
        return self.prefix + "blobs/long/" + Digest.sha256(key.rawValue).hexString + id
    }

    // MARK: - ObjectStore

    public func put<Body: AsyncSequence>(
        _ key: ObjectKey,
        body: Body,
        maxBytes: Int,
        digest: ObjectIntake.Digest,
        attributes: (ObjectIntake.Summary) async throws -> ObjectAttributes
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer {
        let blob = self.blobKey(key)
        var intake = ObjectIntake(maxBytes: maxBytes, digest: digest)
        // The part being filled, and up to `partsInFlight` parts going up at once over the pool; a part's
        // buffer comes back when its upload is done and is filled again (one part's memory each, never grown
        // past it: ByteBuffer doubles when it grows, so a body past 1 MiB gets exactly a part's room; never
        // copied; and never freed and allocated again per part, as glibc would keep freed parts in per-thread
        // arenas).
        var pending = ByteBuffer()
        var upload: String? = nil
        do throws(any Error) {
            let parts = try await withThrowingTaskGroup(
                of: (number: Int, etag: String, buffer: ByteBuffer).self
            ) { group in
                var spare: [ByteBuffer] = []
                var etags: [(number: Int, etag: String)] = []
                var sent = 0
                var running = 0
                do {
                    for try await chunk in body {
                        try intake.take(chunk)
                        var chunk = chunk
                        while chunk.readableBytes > 0 {
                            var piece = chunk.readSlice(
                                length: min(chunk.readableBytes, self.partSize - pending.readableBytes)
                            )!
                            if pending.capacity < self.partSize, pending.readableBytes + piece.readableBytes > 1 << 20 {
                                pending.reserveCapacity(self.partSize)
                            }
                            pending.writeBuffer(&piece)
                            guard pending.readableBytes == self.partSize else { continue }
                            if upload == nil { upload = try await self.client.createMultipartUpload(blob) }
                            if running == self.partsInFlight, let done = try await group.next() {
                                etags.append((done.number, done.etag))
                                spare.append(done.buffer)
                                running -= 1
                            }
                            sent += 1
                            let (number, id, part, client) = (sent, upload!, pending, self.client)
                            group.addTask {
                                (
                                    number,
                                    try await client.uploadPart(blob, uploadID: id, number: number, bytes: part), part
                                )
                            }
                            running += 1
                            // The part is the upload's now: fill a returned one (its memory kept) or a new one.
                            pending = spare.popLast() ?? ByteBuffer()
                            pending.clear()
                        }
                    }
                } catch {
                    // The parts already going up finish before the upload is aborted: an abort that races its own
                    // parts can find the store still busy with them and leave the upload open.
                    while !group.isEmpty { _ = try? await group.next() }
                    throw error
                }
                if let id = upload, pending.readableBytes > 0 {
                    sent += 1
                    let (number, part, client) = (sent, pending, self.client)
                    group.addTask {
                        (number, try await client.uploadPart(blob, uploadID: id, number: number, bytes: part), part)
                    }
                }
                while let done = try await group.next() { etags.append((done.number, done.etag)) }
                return etags.sorted { $0.number < $1.number }
            }
            if let started = upload {
                try await self.client.completeMultipartUpload(blob, uploadID: started, parts: parts)
            } else {
                try await self.client.putObject(blob, bytes: pending)
            }
            let attributes = try await attributes(intake.finish())
            let metadata = intake.metadata(for: key, attributes: attributes)
            let previous = try await self.record(key)
            let record = Record(metadata: metadata, blob: blob)
            try await self.client.putObject(
                self.recordKey(key),
                bytes: ByteBuffer(bytes: try JSONEncoder().encode(record)),
                contentType: "application/json"
            )
            self.records.keep(record, for: key)
            if let previous { try? await self.client.deleteObject(previous.record.blob) }
            return metadata
        } catch {
            // Not cancelled with the request: a client that went away must still leave nothing behind.
            let client = self.client
            await Task.detached { await Self.discard(blob, upload: upload, client: client) }.value
            throw error
        }
    }

    /// Aborts an unfinished put's multipart upload and deletes its blob: once within 3 seconds, for the answer
    /// to wait on; when the store does not answer then (the outage that failed the put), again in the
    /// background 1, 2, 4, ... 64 seconds later, about two minutes in all. An upload still open after that is
    /// ended by a reset, or by the bucket's lifecycle rule; it is never visible, as no record names it.
    static func discard(_ blob: String, upload: String?, client: S3Client) async {
        @Sendable func attempt(_ client: S3Client) async -> Bool {
            do {
                if let upload { try await client.abortMultipartUpload(blob, uploadID: upload) }
                try await client.deleteObject(blob)
                return true
            } catch {
                return false
            }
        }
        guard await !attempt(S3Client(location: client.location, timeout: .seconds(3), retries: 0)) else { return }
        Task.detached {
            for delay in [1, 2, 4, 8, 16, 32, 64] {
                try? await Task.sleep(for: .seconds(delay))
                if await attempt(client) { return }
            }
        }
    }

    /// The metadata of the object, from a record read within the staleness bound when there is one.
    public func metadata(for key: ObjectKey) async throws -> ObjectMetadata? {
        try await self.currentRecord(key)?.metadata
    }

    public func read(
        _ key: ObjectKey,
        range: Range<Int>?,
        into consumer: (ByteBuffer) async throws -> Void
    ) async throws {
        try await self.open(key, range: range).read(into: consumer)
    }

    /// One GET of the blob the record names (the record itself from the cache when it is fresh), answered once
    /// S3 sent the response head; the body streams as it arrives.
    ///
    /// - Throws: `MockCDNError.objectNotFound` when there is no record, or its blob is gone: deleted or replaced
    ///   by another instance since the record was read. The record is then forgotten, so a reader that asks
    ///   again reads it from the bucket.
    public func open(_ key: ObjectKey, range: Range<Int>?) async throws -> OpenedRead {
        guard let record = try await self.currentRecord(key) else { throw MockCDNError.objectNotFound }
        let range = try range?.validated(within: record.metadata.size)
        if range?.isEmpty == true || record.metadata.size == 0 { return OpenedRead { _ in } }
        guard let response = try await self.client.getObject(record.blob, range: range) else {
            self.records.forget(key)
            throw MockCDNError.objectNotFound
        }
        let expected = range?.count ?? record.metadata.size
        let client = self.client
        return OpenedRead { consumer in
            var received = 0
            try await client.bounded {
                for try await chunk in response.body {
                    received += chunk.readableBytes
                    try await consumer(chunk)
                }
            }
            guard received == expected else {
                throw MockCDNError.storageFailure("the S3 store sent \(received) of \(expected) bytes")
            }
        }
    }

    @discardableResult
    public func updateMetadata(
        _ key: ObjectKey,
        _ change: (inout ObjectMetadata) -> Void
    ) async throws -> ObjectMetadata {
        // Read, change, write only if nobody wrote in between (If-Match); try again when somebody did.
        for _ in 0..<4 {
            guard let (found, etag) = try await self.record(key) else { throw MockCDNError.objectNotFound }
            var record = found
            change(&record.metadata)
            do {
                try await self.client.putObject(
                    self.recordKey(key),
                    bytes: ByteBuffer(bytes: try JSONEncoder().encode(record)),
                    contentType: "application/json",
                    ifMatch: etag
                )
                self.records.keep(record, for: key)
                return record.metadata
            } catch let failure as S3Client.Failure where failure.status == 412 {
                continue
            }
        }
        throw MockCDNError.storageFailure("the record of \(key) kept changing under a metadata update")
    }

    @discardableResult
    public func delete(_ key: ObjectKey) async throws -> Bool {
        guard let record = try await self.record(key)?.record else {
            self.records.forget(key)
            return false
        }
        try await self.client.deleteObject(self.recordKey(key))
        self.records.forget(key)
        try await self.client.deleteObject(record.blob)
        return true
    }

    public func list(prefix: String) async throws -> [ObjectMetadata] {
        // The records under `meta/` that the prefix names, and every record of a long key (their names say
        // nothing of their keys; such keys are rare, and each costs one read per listing).
        let names =
            try await self.client.listKeys(prefix: self.prefix + "meta/" + prefix)
            + self.client.listKeys(prefix: self.prefix + "long/")
        var found: [ObjectMetadata] = []
        try await withThrowingTaskGroup(of: ObjectMetadata?.self) { group in
            var next = names.makeIterator()
            func start() {
                guard let name = next.next() else { return }
                group.addTask { try await self.record(named: name)?.record.metadata }
            }
            for _ in 0..<self.listingConcurrency { start() }
            while let result = try await group.next() {
                if let result, result.key.hasBytePrefix(prefix) { found.append(result) }
                start()
            }
        }
        return found.sorted { ObjectKey.listedBefore($0.key, $1.key) }
    }

    /// Everything under the prefix: records first (so nothing is visible half-removed), then blobs, orphans
    /// included, and any multipart upload left open.
    public func removeAll() async throws {
        defer { self.records.forgetAll() }
        for upload in try await self.client.incompleteUploads(prefix: self.prefix) {
            try await self.client.abortMultipartUpload(upload.key, uploadID: upload.uploadID)
        }
        // One listing; the records go first.
        let names = try await self.client.listKeys(prefix: self.prefix)
        let isRecord = { (name: String) in
            name.hasBytePrefix(self.prefix + "meta/") || name.hasBytePrefix(self.prefix + "long/")
        }
        for name in names.filter(isRecord) + names.filter({ !isRecord($0) }) {
            try await self.client.deleteObject(name)
        }
    }

    /// One cheap request to the bucket (a listing of at most one key under the prefix), within 2 seconds.
    ///
    /// - Throws: `S3Client.Failure` when S3 refuses (no such bucket, bad keys), `MockCDNError.storageFailure`
    ///   when it does not answer.
    public func probe() async throws {
        let quick = S3Client(location: self.client.location, timeout: .seconds(2), retries: 0)
        _ = try await quick.send(
            "GET",
            key: "",
            query: [("list-type", "2"), ("max-keys", "1"), ("prefix", self.prefix)],
            idempotent: true
        )
    }

    // MARK: - Records

    /// The record of `key`: the cached one while it is fresh, else read from the bucket (once for all the
    /// readers that want it at the same time) and cached.
    func currentRecord(_ key: ObjectKey) async throws -> Record? {
        if let cached = self.records.fresh(key) { return cached }
        return try await self.records.read(key) { try await self.record(key)?.record }
    }

    /// The record of `key` and its ETag, read from the bucket, or nil.
    func record(_ key: ObjectKey) async throws -> (record: Record, etag: String?)? {
        try await self.record(named: self.recordKey(key))
    }

    /// The record kept at `name` and its ETag, or nil; one that is not kept where its own key's record belongs
    /// (a `long/` record of another key, a record edited by hand) is unreadable.
    func record(named name: String) async throws -> (record: Record, etag: String?)? {
        guard let (body, etag) = try await self.client.getSmallObject(name) else { return nil }
        guard let record = try? JSONDecoder().decode(Record.self, from: Data(body.readableBytesView)),
            let key = try? ObjectKey(record.metadata.key), self.recordKey(key).isByteEqual(name)
        else {
            throw MockCDNError.storageFailure("the S3 store holds an unreadable record at \(name)")
        }
        return (record, etag)
    }
}
