import CMockCDNCrypto

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
