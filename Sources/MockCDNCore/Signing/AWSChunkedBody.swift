import NIOCore

/// An `aws-chunked` request body decoded as it streams: the payload of `Base` (a request body's buffers, split
/// anywhere), checked by an `AWSChunkedDecoder`. At the end it checks that the body was complete (its final
/// chunk, length and trailer signature) and hands the trailer fields to `onTrailers` before it ends, so a
/// trailer checksum that does not match can fail the body too.
///
/// It throws `AWSChunkedError` for a body that breaks a rule, or what `Base` or `onTrailers` throw. Payload is
/// yielded before its chunk's signature is checked (see `AWSChunkedDecoder`): keep nothing until the sequence
/// has ended without error.
public struct AWSChunkedBody<Base: AsyncSequence>: AsyncSequence where Base.Element == ByteBuffer {
    /// Payload bytes, slices of the buffers `Base` yields.
    public typealias Element = ByteBuffer

    private let base: Base
    private let mode: AWSChunkedMode
    private let seed: SigV4.StreamingSeed?
    private let decodedLength: Int64
    private let onTrailers: @Sendable (AWSChunkedDecoder.Trailers) throws -> Void

    /// The decoded payload of `base`, a body in `mode`.
    ///
    /// - Parameters:
    ///   - base: the body as it arrives.
    ///   - mode: the mode the request's `x-amz-content-sha256` names.
    ///   - seed: the header signature's seed (`SigV4.SignedRequest.streamingSeed`); required in the signed modes.
    ///   - decodedLength: `x-amz-decoded-content-length` (`AWSChunkedDecoder.decodedLength(_:)` reads it).
    ///   - onTrailers: called once, after the last payload and before the end, with the trailer fields (e.g.
    ///     `x-amz-checksum-crc32`, to check against the payload); what it throws ends the sequence.
    /// - Throws: `AWSChunkedError.unseededSignedBody` for a signed mode without a seed,
    ///   `AWSChunkedError.invalidDecodedLength` for a negative length.
    public init(
        _ base: Base,
        mode: AWSChunkedMode,
        seed: SigV4.StreamingSeed?,
        decodedLength: Int64,
        onTrailers: @escaping @Sendable (AWSChunkedDecoder.Trailers) throws -> Void = { _ in }
    ) throws(AWSChunkedError) {
        try AWSChunkedDecoder.validate(mode: mode, seed: seed, decodedLength: decodedLength)
        self.base = base
        self.mode = mode
        self.seed = seed
        self.decodedLength = decodedLength
        self.onTrailers = onTrailers
    }

    /// An iterator with a decoder of its own.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            base: self.base.makeAsyncIterator(),
            decoder: AWSChunkedDecoder(validatedMode: self.mode, seed: self.seed, decodedLength: self.decodedLength),
            onTrailers: self.onTrailers
        )
    }

    /// Reads `Base` and yields the payload it holds.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var base: Base.AsyncIterator
        private var decoder: AWSChunkedDecoder
        private let onTrailers: @Sendable (AWSChunkedDecoder.Trailers) throws -> Void
        /// Payload decoded from the last buffer and not yet yielded, from `nextPending` on.
        private var pending: [ByteBuffer] = []
        private var nextPending = 0
        private var finished = false

        init(
            base: Base.AsyncIterator,
            decoder: AWSChunkedDecoder,
            onTrailers: @escaping @Sendable (AWSChunkedDecoder.Trailers) throws -> Void
        ) {
            self.base = base
            self.decoder = decoder
            self.onTrailers = onTrailers
        }

        /// The next piece of payload, or nil once the body has ended and checked out.
        ///
        /// - Returns: payload bytes; nil after the whole body (its trailer included) has been read and checked.
        /// - Throws: `AWSChunkedError` for a body that breaks a rule, or what `Base` or `onTrailers` throw.
        public mutating func next() async throws -> ByteBuffer? {
            while true {
                if self.nextPending < self.pending.count {
                    defer { self.nextPending += 1 }
                    return self.pending[self.nextPending]
                }
                // Drained: let go of the last buffer before waiting for the next.
                self.pending.removeAll(keepingCapacity: true)
                self.nextPending = 0
                if self.finished { return nil }
                guard var buffer = try await self.base.next() else {
                    let trailers = try self.decoder.finish()
                    self.finished = true
                    try self.onTrailers(trailers)
                    return nil
                }
                self.pending = try self.decoder.decode(&buffer)
            }
        }
    }
}

extension AWSChunkedBody: Sendable where Base: Sendable {}
