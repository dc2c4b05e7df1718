import CMockCDNCrypto

/// An HMAC-SHA256 key prepared once and used for many messages, e.g. an app secret that checks every
/// File Access Token. Safe to share between tasks: each MAC works on its own copy of the keyed state.
public final class HMACKey: Sendable {
    // The pointee is never mutated after init (CMockCDNCrypto_hmac_key_mac duplicates it), so sharing the
    // pointer across threads is safe.
    private nonisolated(unsafe) let key: OpaquePointer

    /// Prepares `secret` as an HMAC-SHA256 key.
    ///
    /// - Parameter secret: the key bytes, of any length.
    public init(_ secret: some ContiguousBytesView) {
        let key = secret.withBytes { CMockCDNCrypto_hmac_key_new($0.baseAddress, $0.count) }
        guard let key else { fatalError("libcrypto cannot allocate an HMAC key") }
        self.key = key
    }

    deinit { CMockCDNCrypto_hmac_key_free(self.key) }

    /// HMAC-SHA256 of `message` under this key.
    ///
    /// - Parameter message: the bytes to authenticate.
    /// - Returns: 32 bytes.
    public func authenticationCode(for message: some ContiguousBytesView) -> [UInt8] {
        message.withBytes { bytes in
            [UInt8](unsafeUninitializedCapacity: Int(CMOCKCDN_SHA256_LENGTH)) { out, count in
                precondition(
                    CMockCDNCrypto_hmac_key_mac(self.key, bytes.baseAddress, bytes.count, out.baseAddress!) == 1
                )
                count = Int(CMOCKCDN_SHA256_LENGTH)
            }
        }
    }
}
