import NIOCore

/// Stored objects one after the other, as one body (the parts of a multipart upload, joined).
struct StoredPieces: AsyncIteratorProtocol {
    private let pieces: [StoredBody]
    private var index = 0
    private var current: StoredBody.AsyncIterator?

    init(_ pieces: [StoredBody]) {
        self.pieces = pieces
    }

    mutating func next() async throws -> ByteBuffer? {
        while true {
            if var iterator = self.current {
                if let chunk = try await iterator.next() {
                    self.current = iterator
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
