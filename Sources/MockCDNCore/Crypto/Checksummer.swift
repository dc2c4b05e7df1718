import CMockCDNCrypto

/// An S3 flexible checksum over bytes that arrive in pieces, such as an upload streaming to disk: feed it each
/// chunk as it arrives (a `ByteBuffer` is read in place), then finalize it once the body has ended.
///
/// Not thread-safe, and so not `Sendable`: one task feeds it and finalizes it, as the body's own loop does.
public final class Checksummer {
    private enum State {
        case crc32(UInt32)
        case crc32c(UInt32)
        case crc64nvme(UInt64)
        case sha1(SHA1Hasher)
        case sha256(SHA256Hasher)
        case sha512(SHA512Hasher)
        case md5(MD5Hasher)
        case xxhash(XXHasher)
        case finished([UInt8])
    }

    /// What it computes.
    public let algorithm: ChecksumAlgorithm
    private var state: State

    /// Starts a checksum over no bytes yet.
    ///
    /// - Parameter algorithm: what to compute.
    public init(_ algorithm: ChecksumAlgorithm) {
        self.algorithm = algorithm
        self.state =
            switch algorithm {
            case .crc32: .crc32(0)
            case .crc32c: .crc32c(0)
            case .crc64nvme: .crc64nvme(0)
            case .sha1: .sha1(SHA1Hasher())
            case .sha256: .sha256(SHA256Hasher())
            case .sha512: .sha512(SHA512Hasher())
            case .md5: .md5(MD5Hasher())
            case .xxhash64: .xxhash(XXHasher(.xxh64))
            case .xxhash3: .xxhash(XXHasher(.xxh3))
            case .xxhash128: .xxhash(XXHasher(.xxh128))
            }
    }

    /// Adds bytes to the running checksum; only before `finalize()`.
    ///
    /// - Parameter data: the next piece.
    public func update(_ data: some ContiguousBytesView) {
        switch self.state {
        case .crc32(let crc):
            self.state = .crc32(data.withBytes { CMockCDNCrypto_crc32_update(crc, $0.baseAddress, $0.count) })
        case .crc32c(let crc):
            self.state = .crc32c(data.withBytes { CMockCDNCrypto_crc32c_update(crc, $0.baseAddress, $0.count) })
        case .crc64nvme(let crc):
            self.state = .crc64nvme(data.withBytes { CMockCDNCrypto_crc64nvme_update(crc, $0.baseAddress, $0.count) })
        case .sha1(let hasher):
            hasher.update(data)
        case .sha256(let hasher):
            hasher.update(data)
        case .sha512(let hasher):
            hasher.update(data)
        case .md5(let hasher):
            hasher.update(data)
        case .xxhash(let hasher):
            hasher.update(data)
        case .finished:
            preconditionFailure("Checksummer.update(_:) after finalize()")
        }
    }

    /// Ends the checksum. Later calls return the same bytes; `update(_:)` may not follow.
    ///
    /// - Returns: `algorithm.digestLength` bytes; a CRC or an xxHash big-endian, as S3 encodes it.
    public func finalize() -> [UInt8] {
        let digest: [UInt8]
        switch self.state {
        case .finished(let finished): return finished
        case .crc32(let crc), .crc32c(let crc): digest = withUnsafeBytes(of: crc.bigEndian) { Array($0) }
        case .crc64nvme(let crc): digest = withUnsafeBytes(of: crc.bigEndian) { Array($0) }
        case .sha1(let hasher): digest = hasher.finalize()
        case .sha256(let hasher): digest = hasher.finalize()
        case .sha512(let hasher): digest = hasher.finalize()
        case .md5(let hasher): digest = hasher.finalize()
        case .xxhash(let hasher): digest = hasher.finalize()
        }
        self.state = .finished(digest)
        return digest
    }

    /// Ends the checksum, as `finalize()` does, in the base64 that `x-amz-checksum-*` carries.
    ///
    /// - Returns: the standard alphabet, padded: `i9aeUg==`.
    public func base64() -> String {
        Base64.encode(self.finalize(), .standard)
    }
}
