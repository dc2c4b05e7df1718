import CMockCDNCrypto

/// MD5 over bytes that arrive in pieces: S3's `Content-MD5` check and its ETags. An integrity check, never a
/// security one. Not thread-safe.
public final class MD5Hasher {
    private let state: OpaquePointer

    /// Starts a digest over no bytes yet.
    public init() {
        guard let state = CMockCDNCrypto_md5_new() else { fatalError("libcrypto cannot allocate an MD5 state") }
        self.state = state
    }

    deinit { CMockCDNCrypto_md5_free(self.state) }

    /// Adds bytes to the running digest.
    ///
    /// - Parameter data: the next piece.
    public func update(_ data: some ContiguousBytesView) {
        data.withBytes { bytes in
            precondition(CMockCDNCrypto_md5_update(self.state, bytes.baseAddress, bytes.count) == 1)
        }
    }

    /// Ends the digest; call it once.
    ///
    /// - Returns: 16 bytes.
    public func finalize() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Int(CMOCKCDN_MD5_LENGTH)) { buffer, count in
            precondition(CMockCDNCrypto_md5_final(self.state, buffer.baseAddress!) == 1)
            count = Int(CMOCKCDN_MD5_LENGTH)
        }
    }
}
