import CMockCDNCrypto

/// One-shot digests from libcrypto.
public enum Digest {
    /// SHA-256 of `data`.
    ///
    /// - Parameter data: the bytes to hash.
    /// - Returns: 32 bytes.
    public static func sha256(_ data: some ContiguousBytesView) -> [UInt8] {
        data.withBytes { bytes in
            digest(length: Int(CMOCKCDN_SHA256_LENGTH)) { CMockCDNCrypto_sha256(bytes.baseAddress, bytes.count, $0) }
        }
    }

    /// SHA-1 of `data`: S3's `x-amz-checksum-sha1`.
    ///
    /// - Parameter data: the bytes to hash.
    /// - Returns: 20 bytes.
    public static func sha1(_ data: some ContiguousBytesView) -> [UInt8] {
        data.withBytes { bytes in
            digest(length: Int(CMOCKCDN_SHA1_LENGTH)) { CMockCDNCrypto_sha1(bytes.baseAddress, bytes.count, $0) }
        }
    }

    /// MD5 of `data`: S3's `Content-MD5` and the ETag of an object uploaded in one piece.
    ///
    /// - Parameter data: the bytes to hash.
    /// - Returns: 16 bytes.
    public static func md5(_ data: some ContiguousBytesView) -> [UInt8] {
        data.withBytes { bytes in
            digest(length: Int(CMOCKCDN_MD5_LENGTH)) { CMockCDNCrypto_md5(bytes.baseAddress, bytes.count, $0) }
        }
    }

    private static func digest(length: Int, _ body: (UnsafeMutableRawPointer) -> Int32) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            // libcrypto only fails here when it cannot allocate, which Swift treats as fatal too.
            precondition(body(buffer.baseAddress!) == 1, "libcrypto digest failed")
            count = length
        }
    }
}
