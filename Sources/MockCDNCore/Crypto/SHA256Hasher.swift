import CMockCDNCrypto

/// SHA-256 over bytes that arrive in pieces, such as an upload streaming to disk. Not thread-safe.
public final class SHA256Hasher {
    private let state: OpaquePointer

    public init() {
        guard let state = CMockCDNCrypto_sha256_new() else { fatalError("libcrypto cannot allocate a SHA-256 state") }
        self.state = state
    }

    deinit { CMockCDNCrypto_sha256_free(self.state) }

    /// Adds bytes to the running digest.
    ///
    /// - Parameter data: the next piece.
    public func update(_ data: some ContiguousBytesView) {
        data.withBytes { bytes in
            precondition(CMockCDNCrypto_sha256_update(self.state, bytes.baseAddress, bytes.count) == 1)
        }
    }

    /// Ends the digest; call it once.
    ///
    /// - Returns: 32 bytes.
    public func finalize() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Int(CMOCKCDN_SHA256_LENGTH)) { buffer, count in
            precondition(CMockCDNCrypto_sha256_final(self.state, buffer.baseAddress!) == 1)
            count = Int(CMOCKCDN_SHA256_LENGTH)
        }
    }
}
