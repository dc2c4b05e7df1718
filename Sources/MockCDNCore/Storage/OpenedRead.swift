import NIOCore

/// A read of an object's bytes that the store has already started: it found the bytes (and for a remote store,
/// has their first answer), so what is left is streaming them.
///
/// A reader opens before it commits to an answer, so that bytes found gone answer as a missing object rather
/// than as a response cut short after its head went out.
public struct OpenedRead: Sendable {
    private let stream: @Sendable (_ consumer: (ByteBuffer) async throws -> Void) async throws -> Void

    /// - Parameter stream: hands the bytes, chunk by chunk, to the consumer it is given; called once.
    public init(_ stream: @escaping @Sendable (_ consumer: (ByteBuffer) async throws -> Void) async throws -> Void) {
        self.stream = stream
    }

    /// Streams the opened bytes to `consumer`, chunk by chunk, in order.
    ///
    /// - Parameter consumer: called with each chunk.
    /// - Throws: `MockCDNError.storageFailure` when the store stops sending, or what `consumer` throws.
    public func read(into consumer: (ByteBuffer) async throws -> Void) async throws {
        try await self.stream(consumer)
    }
}
