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

/// One-shot HMAC.
public enum HMAC {
    /// HMAC-SHA256 of `message` under `key`, for keys used once (SigV4 derives a new key per step).
    ///
    /// - Parameters:
    ///   - message: the bytes to authenticate.
    ///   - key: the key bytes, of any length.
    /// - Returns: 32 bytes.
    public static func sha256(_ message: some ContiguousBytesView, key: some ContiguousBytesView) -> [UInt8] {
        self.mac(message, key: key, length: Int(CMOCKCDN_SHA256_LENGTH), CMockCDNCrypto_hmac_sha256)
    }

    /// HMAC-SHA1 of `message` under `key`: S3's SigV2 signatures.
    ///
    /// - Parameters:
    ///   - message: the bytes to authenticate.
    ///   - key: the key bytes, of any length.
    /// - Returns: 20 bytes.
    public static func sha1(_ message: some ContiguousBytesView, key: some ContiguousBytesView) -> [UInt8] {
        self.mac(message, key: key, length: Int(CMOCKCDN_SHA1_LENGTH), CMockCDNCrypto_hmac_sha1)
    }

    private static func mac(
        _ message: some ContiguousBytesView,
        key: some ContiguousBytesView,
        length: Int,
        _ function: (UnsafeRawPointer?, Int, UnsafeRawPointer?, Int, UnsafeMutableRawPointer) -> Int32
    ) -> [UInt8] {
        key.withBytes { keyBytes in
            message.withBytes { bytes in
                [UInt8](unsafeUninitializedCapacity: length) { out, count in
                    let status = function(
                        keyBytes.baseAddress,
                        keyBytes.count,
                        bytes.baseAddress,
                        bytes.count,
                        out.baseAddress!
                    )
                    precondition(status == 1, "libcrypto HMAC failed")
                    count = length
                }
            }
        }
    }

}
