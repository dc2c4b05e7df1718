import NIOPosix

extension Digest {
    /// The largest body hashed where the caller runs; a larger one is hashed on NIO's thread pool.
    public static let inlineBytes = 64 * 1024

    /// Runs `hashing`, digests of a body of `bytes` bytes read whole (a DeleteObjects or
    /// CompleteMultipartUpload document of up to megabytes): on `pool` when the body is larger than
    /// `inlineBytes`, so that the cooperative pool's threads (two on a two-core machine, shared by every
    /// request) go on answering meanwhile; where the caller runs otherwise, where the hop would cost more than
    /// the hashing. Bodies that stream are hashed on the pool as they arrive (`PayloadBody`).
    ///
    /// - Parameters:
    ///   - bytes: the body's size.
    ///   - pool: where a large body is hashed.
    ///   - hashing: the work.
    /// - Returns: what `hashing` returns.
    /// - Throws: what `hashing` throws.
    public static func taken<Value: Sendable>(
        over bytes: Int,
        on pool: NIOThreadPool = .singleton,
        _ hashing: @escaping @Sendable () throws -> Value
    ) async throws -> Value {
        guard bytes > Self.inlineBytes else { return try hashing() }
        return try await pool.runIfActive(hashing)
    }
}
