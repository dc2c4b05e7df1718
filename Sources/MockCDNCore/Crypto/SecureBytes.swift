import CMockCDNCrypto

/// Secret-safe byte helpers from libcrypto.
public enum SecureBytes {
    /// Cryptographically strong random bytes.
    ///
    /// - Parameter count: how many bytes.
    /// - Returns: `count` random bytes.
    public static func random(count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, written in
            if count > 0 {
                precondition(CMockCDNCrypto_random_bytes(buffer.baseAddress!, count) == 1, "RAND_bytes failed")
            }
            written = count
        }
    }

    /// Compares two secrets in time that depends only on their lengths, never on where they differ.
    ///
    /// - Parameters:
    ///   - lhs: one secret, e.g. the signature the request carried.
    ///   - rhs: the other, e.g. the signature computed here.
    /// - Returns: true when both hold the same bytes.
    public static func constantTimeEqual(_ lhs: some ContiguousBytesView, _ rhs: some ContiguousBytesView) -> Bool {
        lhs.withBytes { left in
            rhs.withBytes { right in
                // Unequal lengths are not secret (a signature's length is public), so they may return early.
                guard left.count == right.count else { return false }
                guard left.count > 0 else { return true }
                return CMockCDNCrypto_constant_time_equal(left.baseAddress!, right.baseAddress!, left.count) == 1
            }
        }
    }
}
