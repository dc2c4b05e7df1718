import CMockCDNCrypto

/// SHA-1 over bytes that arrive in pieces: S3's `x-amz-checksum-sha1`. Not thread-safe.
public final class SHA1Hasher {
    private let state: OpaquePointer

    /// Starts a digest over no bytes yet.
    public init() {
        guard let state = CMockCDNCrypto_sha1_new() else { fatalError("libcrypto cannot allocate a SHA-1 state") }
        self.state = state
    }

    deinit { CMockCDNCrypto_sha1_free(self.state) }

    /// Adds bytes to the running digest.
    ///
    /// - Parameter data: the next piece.
    public func update(_ data: some ContiguousBytesView) {
        data.withBytes { bytes in
            precondition(CMockCDNCrypto_sha1_update(self.state, bytes.baseAddress, bytes.count) == 1)
        }
    }

    /// Ends the digest; call it once.
    ///
    /// - Returns: 20 bytes.
    public func finalize() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Int(CMOCKCDN_SHA1_LENGTH)) { buffer, count in
            precondition(CMockCDNCrypto_sha1_final(self.state, buffer.baseAddress!) == 1)
            count = Int(CMOCKCDN_SHA1_LENGTH)
        }
    }
}
