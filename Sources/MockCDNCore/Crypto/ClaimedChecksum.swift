/// A checksum a client sent with a body, `Content-MD5` or an `x-amz-checksum-*` header or trailer, decoded.
/// Read it when the header arrives, so that a malformed value is refused before the body is read, and
/// check it once the body has been hashed.
public struct ClaimedChecksum: Sendable, Equatable {
    /// The algorithm it claims; nil for `Content-MD5`.
    public let algorithm: ChecksumAlgorithm?
    /// The decoded bytes: `algorithm.digestLength` of them, or 16 for `Content-MD5`.
    public let digest: [UInt8]

    /// Reads the value of an `x-amz-checksum-*` header or trailer.
    ///
    /// - Parameters:
    ///   - value: the value as sent: base64 in the standard alphabet, padded.
    ///   - algorithm: the algorithm the header names.
    /// - Throws: `ChecksumError.invalid(algorithm)` when the value is not base64 of the algorithm's length.
    public init(_ value: some StringProtocol, algorithm: ChecksumAlgorithm) throws(ChecksumError) {
        guard let digest = Self.decode(value, length: algorithm.digestLength) else { throw .invalid(algorithm) }
        self.algorithm = algorithm
        self.digest = digest
    }

    /// Reads the value of a `Content-MD5` header.
    ///
    /// - Parameter value: the value as sent: base64 of the 16-byte MD5, padded.
    /// - Throws: `ChecksumError.invalidContentMD5` when the value is not base64 of 16 bytes.
    public init(contentMD5 value: some StringProtocol) throws(ChecksumError) {
        guard let digest = Self.decode(value, length: 16) else { throw .invalidContentMD5 }
        self.algorithm = nil
        self.digest = digest
    }

    /// The `length` bytes `value` encodes, or nil. Only the one canonical spelling is taken (padded, no stray
    /// bits): it is all an SDK sends, and Foundation's decoder alone would also take extra padding.
    private static func decode(_ value: some StringProtocol, length: Int) -> [UInt8]? {
        guard let digest = Base64.decode(value, .standard), digest.count == length,
            value == Base64.encode(digest, .standard)
        else { return nil }
        return digest
    }

    /// Compares the claim with what the body hashed to, in time that does not depend on where they differ.
    ///
    /// - Parameter computed: the body's checksum (from `Checksummer.finalize()`, or `MD5Hasher` for
    ///   `Content-MD5`).
    /// - Throws: `ChecksumError.mismatch(algorithm)` or `.contentMD5Mismatch` when they differ.
    public func check(_ computed: some ContiguousBytesView) throws(ChecksumError) {
        guard !SecureBytes.constantTimeEqual(self.digest, computed) else { return }
        if let algorithm = self.algorithm { throw .mismatch(algorithm) }
        throw .contentMD5Mismatch
    }

    /// Finalizes `checksummer` and compares the claim with it, as `check(_:)` does.
    ///
    /// - Parameter checksummer: the body's running checksum, of the claim's algorithm.
    /// - Throws: `ChecksumError.mismatch(algorithm)` when they differ.
    public func check(_ checksummer: Checksummer) throws(ChecksumError) {
        precondition(
            checksummer.algorithm == self.algorithm,
            "a \(checksummer.algorithm) checksum for a claim of another"
        )
        try self.check(checksummer.finalize())
    }
}
