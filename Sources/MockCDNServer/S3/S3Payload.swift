import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore
import NIOPosix

/// An S3 request's body on its way to the store (PutObject, UploadPart): aws-chunked framing taken off when
/// its signature says so, every byte through its `PayloadDigests`; once whole, held to what the signature
/// (`PayloadPromise`) and the checksum claims promised.
struct S3Payload: Sendable {
    /// The object's length under aws-chunked framing, which `Content-Length` counts too.
    static let decodedLengthHeader = HTTPField.Name("x-amz-decoded-content-length")!

    let promise: PayloadPromise
    let digests: PayloadDigests
    /// The object's length when the framing hides it (`x-amz-decoded-content-length`); nil: `Content-Length`.
    let declaredLength: Int?

    /// The payload of `request`, whose credential made `promise`.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - query: its query.
    ///   - promise: what its credential promised of the body.
    ///   - unclaimedAlgorithm: the checksum to take when the request claims none (an UploadPart's upload's);
    ///     nil for CRC64NVME.
    /// - Throws: what `PayloadDigests` throws for a claim that is no checksum; 411 `MissingContentLength`
    ///   (and the other `AWSChunkedError`s) for an aws-chunked body without a readable decoded length.
    init(
        _ request: Request,
        query: QueryItems,
        promise: PayloadPromise,
        unclaimedAlgorithm: ChecksumAlgorithm? = nil
    ) throws {
        self.promise = promise
        var trailers = false
        if case .streaming(let mode, _) = promise {
            self.declaredLength = Int(
                clamping: try AWSChunkedDecoder.decodedLength(request.headers[Self.decodedLengthHeader])
            )
            trailers = mode.hasTrailer
        } else {
            self.declaredLength = nil
        }
        self.digests = try PayloadDigests(
            request,
            query: query,
            trailers: trailers,
            unclaimedAlgorithm: unclaimedAlgorithm
        )
    }

    /// What the store hashes for the record: the SHA-256 only when the signature promised it (the ETag is the
    /// MD5 the digests take).
    var digest: ObjectIntake.Digest {
        if case .sha256 = self.promise { return .sha256 }
        return .etagOnly
    }

    /// The bytes to store, from the body as it arrives.
    ///
    /// - Throws: `AWSChunkedError` for a decoded length that cannot be.
    func body<Base: AsyncSequence & Sendable>(_ wire: Base) throws -> PayloadBody<Base>
    where Base.Element == ByteBuffer {
        guard case .streaming(let mode, let seed) = self.promise, let declaredLength else {
            return PayloadBody(base: wire, chunked: nil, digests: self.digests)
        }
        let chunked = try AWSChunkedBody(
            wire,
            mode: mode,
            seed: seed,
            decodedLength: Int64(declaredLength),
            onTrailers: self.digests.take
        )
        return PayloadBody(base: wire, chunked: chunked, digests: self.digests)
    }

    /// Checks the whole body against the promises, and names what to keep: the MD5 ETag and the checksum.
    ///
    /// - Parameters:
    ///   - summary: the body's size and SHA-256, from the store.
    ///   - attributes: the object's attributes, given its ETag and checksum.
    /// - Throws: 400 `XAmzContentSHA256Mismatch`, `ChecksumError` (`BadDigest`).
    func seal(_ summary: ObjectIntake.Summary, _ attributes: inout ObjectAttributes) throws {
        try self.promise.check(summary)
        try self.digests.seal(&attributes)
    }
}

/// A body on its way to the store: its aws-chunked framing taken off (when `chunked`), each chunk through the
/// digests.
///
/// The digests (MD5 for the ETag, and the checksum) are the costliest work an upload does on its bytes, so they
/// run beside it, each in a lane of its own: chunks are handed to the thread pool in batches of `batchBytes`, and
/// each batch goes to the MD5 lane and to the checksum lane, which hash it on two threads at once. A lane takes
/// its batches in order (each starts once the lane's previous one is done), so the digests are those of the body
/// read front to back, and the upload waits for the slower lane (MD5) rather than for the sum of the two. At most
/// `batchesInFlight` batches are handed out and not yet hashed by both lanes; reading waits for the oldest
/// beyond that, so memory stays bounded whatever the body's size. The body ends only after its last bytes are
/// hashed, so the digests are whole when the store asks for attributes.
struct PayloadBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    /// Bytes hashed per trip to the thread pool.
    static var batchBytes: Int { 1024 * 1024 }
    /// Batches that may wait in the lanes: enough for the reading to run ahead of a lane that a busy thread
    /// held up, few enough that the bytes held stay a few MiB.
    static var batchesInFlight: Int { 4 }
    let base: Base
    let chunked: AWSChunkedBody<Base>?
    let digests: PayloadDigests

    struct AsyncIterator: AsyncIteratorProtocol {
        var plain: Base.AsyncIterator?
        var chunked: AWSChunkedBody<Base>.AsyncIterator?
        let digests: PayloadDigests
        /// Chunks read but not yet handed to the digests (slices of the body, not copies), and their size.
        var batch: [ByteBuffer] = []
        var batchSize = 0
        /// Each lane's last batch, which the lane's next batch follows. A body left unread midway leaves them to
        /// finish alone: they only read bytes they hold.
        var md5Lane: EventLoopFuture<Void>?
        var checksumLane: EventLoopFuture<Void>?
        /// Batches handed to the lanes, oldest first, each done once both lanes hashed it.
        var inFlight: [EventLoopFuture<Void>] = []

        mutating func next() async throws -> ByteBuffer? {
            let chunk = self.chunked != nil ? try await self.chunked!.next() : try await self.plain!.next()
            guard let chunk else {
                try await self.md5Lane?.get()
                try await self.checksumLane?.get()
                (self.md5Lane, self.checksumLane, self.inFlight) = (nil, nil, [])
                self.digests.updateMD5(self.batch)
                self.digests.updateChecksum(self.batch)
                self.batch = []
                return nil
            }
            self.batch.append(chunk)
            self.batchSize += chunk.readableBytes
            if self.batchSize >= PayloadBody.batchBytes {
                if self.inFlight.count >= PayloadBody.batchesInFlight { try await self.inFlight.removeFirst().get() }
                let (batch, digests) = (self.batch, self.digests)
                let md5Lane = Self.after(self.md5Lane) { digests.updateMD5(batch) }
                let checksumLane = Self.after(self.checksumLane) { digests.updateChecksum(batch) }
                (self.md5Lane, self.checksumLane) = (md5Lane, checksumLane)
                self.inFlight.append(md5Lane.and(checksumLane).map { _ in })
                self.batch = []
                self.batchSize = 0
            }
            return chunk
        }

        /// Runs `work` on the thread pool once `previous` (a lane's last batch) is done.
        private static func after(
            _ previous: EventLoopFuture<Void>?,
            _ work: @escaping @Sendable () -> Void
        ) -> EventLoopFuture<Void> {
            guard let previous else {
                return NIOThreadPool.singleton.runIfActive(eventLoop: MultiThreadedEventLoopGroup.singleton.any(), work)
            }
            return previous.flatMap { NIOThreadPool.singleton.runIfActive(eventLoop: previous.eventLoop, work) }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            plain: self.chunked == nil ? self.base.makeAsyncIterator() : nil,
            chunked: self.chunked?.makeAsyncIterator(),
            digests: self.digests
        )
    }
}
