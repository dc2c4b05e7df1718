import NIOCore

/// Stored objects one after the other, as one body (the parts of a multipart upload, joined).
struct StoredPieces: AsyncIteratorProtocol {
    private let pieces: [StoredBody]
    private var index = 0
    private var current: StoredBody.AsyncIterator?
    private let observe: (@Sendable (ByteBuffer) -> Void)?

    /// The pieces' bytes, one after another.
    ///
    /// - Parameters:
    ///   - pieces: the stored pieces, in order.
    ///   - observe: sees every chunk as it is handed on (a multipart object's full-object checksum).
    init(_ pieces: [StoredBody], observe: (@Sendable (ByteBuffer) -> Void)? = nil) {
        self.pieces = pieces
        self.observe = observe
    }

    mutating func next() async throws -> ByteBuffer? {
        while true {
            if var iterator = self.current {
                if let chunk = try await iterator.next() {
                    self.current = iterator
                    self.observe?(chunk)
                    return chunk
                }
                self.current = nil
            }
            guard self.index < self.pieces.count else { return nil }
            self.current = self.pieces[self.index].makeAsyncIterator()
            self.index += 1
        }
    }
}
