import CMockCDNCrypto

/// SHA-512 over bytes that arrive in pieces: S3's `x-amz-checksum-sha512`. Not thread-safe.
public final class SHA512Hasher {
    private let state: OpaquePointer

    /// Starts a digest over no bytes yet.
    public init() {
        guard let state = CMockCDNCrypto_sha512_new() else { fatalError("libcrypto cannot allocate a SHA-512 state") }
        self.state = state
    }

    deinit { CMockCDNCrypto_sha512_free(self.state) }

    /// Adds bytes to the running digest.
    ///
    /// - Parameter data: the next piece.
    public func update(_ data: some ContiguousBytesView) {
        data.withBytes { bytes in
            precondition(CMockCDNCrypto_sha512_update(self.state, bytes.baseAddress, bytes.count) == 1)
        }
    }

    /// Ends the digest; call it once.
    ///
    /// - Returns: 64 bytes.
    public func finalize() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Int(CMOCKCDN_SHA512_LENGTH)) { buffer, count in
            precondition(CMockCDNCrypto_sha512_final(self.state, buffer.baseAddress!) == 1)
            count = Int(CMOCKCDN_SHA512_LENGTH)
        }
    }
}
