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
    /// - Throws: what `PayloadDigests` throws for a claim that is no checksum; 411 `MissingContentLength`
    ///   (and the other `AWSChunkedError`s) for an aws-chunked body without a readable decoded length.
    init(_ request: Request, query: QueryItems, promise: PayloadPromise) throws {
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
        self.digests = try PayloadDigests(request, query: query, trailers: trailers)
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
/// run beside it: chunks are handed to the thread pool in batches of `batchBytes`, one batch hashed while the
/// next is read and stored, in order (a batch goes only once the one before it is done). The body ends only
/// after its last bytes are hashed, so the digests are whole when the store asks for attributes.
struct PayloadBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    /// Bytes hashed per trip to the thread pool.
    static var batchBytes: Int { 1024 * 1024 }
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
        /// The batch being hashed on the thread pool. A body left unread midway leaves it to finish alone: it
        /// only reads bytes it holds.
        var hashing: EventLoopFuture<Void>?

        mutating func next() async throws -> ByteBuffer? {
            let chunk = self.chunked != nil ? try await self.chunked!.next() : try await self.plain!.next()
            guard let chunk else {
                try await self.hashing?.get()
                self.hashing = nil
                for piece in self.batch { self.digests.update(piece) }
                self.batch = []
                return nil
            }
            self.batch.append(chunk)
            self.batchSize += chunk.readableBytes
            if self.batchSize >= PayloadBody.batchBytes {
                try await self.hashing?.get()
                let (batch, digests) = (self.batch, self.digests)
                self.hashing = NIOThreadPool.singleton.runIfActive(
                    eventLoop: MultiThreadedEventLoopGroup.singleton.any()
                ) {
                    for piece in batch { digests.update(piece) }
                }
                self.batch = []
                self.batchSize = 0
            }
            return chunk
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
