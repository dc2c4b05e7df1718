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

    /// The record kept at `meta/KEY`.
    struct Record: Codable {
        var metadata: ObjectMetadata
        var blob: String
    }

    public init(client: S3Client, partSize: Int = 8 << 20) {
        self.client = client
        self.partSize = max(partSize, 5 << 20)
    }

    var prefix: String { self.client.location.prefix }

    func recordKey(_ key: ObjectKey) -> String { self.prefix + "meta/" + key.rawValue }

    // MARK: - ObjectStore

    public func put<Body: AsyncSequence>(
        _ key: ObjectKey,
        body: Body,
        maxBytes: Int,
        attributes: (ObjectIntake.Summary) async throws -> ObjectAttributes
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer {
        let blob = self.prefix + "blobs/" + key.rawValue + "/" + UUID().uuidString.lowercased()
        var intake = ObjectIntake(maxBytes: maxBytes)
        // At most one part, handed whole to the upload and then reused for the next: one part's memory per
        // upload, never grown past it (ByteBuffer doubles when it grows, so a body past 1 MiB gets exactly a
        // part's room), never copied, and never freed and allocated again per part (glibc would keep freed
        // parts in per-thread arenas).
        var pending = ByteBuffer()
        var upload: String? = nil
        var parts: [(number: Int, etag: String)] = []
        func send(_ part: ByteBuffer) async throws {
            if upload == nil { upload = try await self.client.createMultipartUpload(blob) }
            let number = parts.count + 1
            parts.append(
                (number, try await self.client.uploadPart(blob, uploadID: upload!, number: number, bytes: part))
            )
        }
        do throws(any Error) {
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
                    if pending.readableBytes == self.partSize {
                        try await send(pending)
                        // The upload has let go of it: the next part reuses the same memory.
                        pending.clear()
                    }
                }
            }
            if let started = upload {
                if pending.readableBytes > 0 { try await send(pending) }
                try await self.client.completeMultipartUpload(blob, uploadID: started, parts: parts)
            } else {
                try await self.client.putObject(blob, bytes: pending)
            }
            let attributes = try await attributes(intake.finish())
            let metadata = intake.metadata(for: key, attributes: attributes)
            let previous = try await self.record(key)
            try await self.client.putObject(
                self.recordKey(key),
                bytes: ByteBuffer(bytes: try JSONEncoder().encode(Record(metadata: metadata, blob: blob))),
                contentType: "application/json"
            )
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

    public func metadata(for key: ObjectKey) async throws -> ObjectMetadata? {
        try await self.record(key)?.record.metadata
    }

    public func read(
        _ key: ObjectKey,
        range: Range<Int>?,
        into consumer: (ByteBuffer) async throws -> Void
    ) async throws {
        guard let record = try await self.record(key)?.record else { throw MockCDNError.objectNotFound }
        let range = try range?.validated(within: record.metadata.size)
        if range?.isEmpty == true || record.metadata.size == 0 { return }
        // Deleted or replaced by another instance since the record was read.
        guard let response = try await self.client.getObject(record.blob, range: range) else {
            throw MockCDNError.objectNotFound
        }
        var received = 0
        let expected = range?.count ?? record.metadata.size
        try await self.client.bounded {
            for try await chunk in response.body {
                received += chunk.readableBytes
                try await consumer(chunk)
            }
        }
        guard received == expected else {
            throw MockCDNError.storageFailure("the S3 store sent \(received) of \(expected) bytes")
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
                return record.metadata
            } catch let failure as S3Client.Failure where failure.status == 412 {
                continue
            }
        }
        throw MockCDNError.storageFailure("the record of \(key) kept changing under a metadata update")
    }

    @discardableResult
    public func delete(_ key: ObjectKey) async throws -> Bool {
        guard let record = try await self.record(key)?.record else { return false }
        try await self.client.deleteObject(self.recordKey(key))
        try await self.client.deleteObject(record.blob)
        return true
    }

    public func list(prefix: String) async throws -> [ObjectMetadata] {
        let root = self.prefix + "meta/"
        let names = try await self.client.listKeys(prefix: root + prefix)
        var found: [ObjectMetadata] = []
        try await withThrowingTaskGroup(of: ObjectMetadata?.self) { group in
            var next = names.makeIterator()
            func start() {
                guard let name = next.next(), let key = try? ObjectKey(String(name.dropFirst(root.count))) else {
                    return
                }
                group.addTask { try await self.record(key)?.record.metadata }
            }
            for _ in 0..<self.listingConcurrency { start() }
            while let result = try await group.next() {
                if let result { found.append(result) }
                start()
            }
        }
        return found.sorted { $0.key < $1.key }
    }

    /// Everything under the prefix: records first (so nothing is visible half-removed), then blobs, orphans
    /// included, and any multipart upload left open.
    public func removeAll() async throws {
        for upload in try await self.client.incompleteUploads(prefix: self.prefix) {
            try await self.client.abortMultipartUpload(upload.key, uploadID: upload.uploadID)
        }
        // One listing; the records go first.
        let names = try await self.client.listKeys(prefix: self.prefix)
        let records = self.prefix + "meta/"
        for name in names.filter({ $0.hasPrefix(records) }) + names.filter({ !$0.hasPrefix(records) }) {
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

    /// The record of `key` and its ETag, or nil.
    func record(_ key: ObjectKey) async throws -> (record: Record, etag: String?)? {
        guard let (body, etag) = try await self.client.getSmallObject(self.recordKey(key)) else { return nil }
        guard let record = try? JSONDecoder().decode(Record.self, from: Data(body.readableBytesView)),
            record.metadata.key == key.rawValue
        else {
            throw MockCDNError.storageFailure("the S3 store holds an unreadable record for \(key)")
        }
        return (record, etag)
    }
}
