import CMockCDNCrypto

/// xxHash over bytes that arrive in pieces, with seed 0: S3's `x-amz-checksum-xxhash64`, `-xxhash3` and
/// `-xxhash128`. The hashing is the xxHash library's own (`CMockCDNXXHash.c`). Not thread-safe.
public final class XXHasher {
    /// Which of xxHash's functions.
    public enum Variant: Sendable {
        /// XXH64: 8 bytes.
        case xxh64
        /// XXH3, 64-bit: 8 bytes.
        case xxh3
        /// XXH3, 128-bit (XXH128): 16 bytes.
        case xxh128

        fileprivate var kind: Int32 {
            switch self {
            case .xxh64: CMOCKCDN_XXHASH64
            case .xxh3: CMOCKCDN_XXHASH3
            case .xxh128: CMOCKCDN_XXHASH128
            }
        }
    }

    private let state: OpaquePointer

    /// Starts a hash over no bytes yet.
    ///
    /// - Parameter variant: which function.
    public init(_ variant: Variant) {
        guard let state = CMockCDNCrypto_xxhash_new(variant.kind) else {
            fatalError("xxHash cannot allocate a state")
        }
        self.state = state
    }

    deinit { CMockCDNCrypto_xxhash_free(self.state) }

    /// Adds bytes to the running hash.
    ///
    /// - Parameter data: the next piece.
    public func update(_ data: some ContiguousBytesView) {
        data.withBytes { bytes in
            precondition(CMockCDNCrypto_xxhash_update(self.state, bytes.baseAddress, bytes.count) == 1)
        }
    }

    /// Ends the hash.
    ///
    /// - Returns: xxHash's canonical form, big-endian: 8 bytes, or 16 for XXH128 (its high half first).
    public func finalize() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 16) { buffer, count in
            var length = 0
            precondition(CMockCDNCrypto_xxhash_final(self.state, buffer.baseAddress!, &length) == 1)
            count = length
        }
    }
}
