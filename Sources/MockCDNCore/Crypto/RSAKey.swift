import CMockCDNCrypto
import Synchronization

/// An RSA key for CloudFront-style signatures: private (signs and verifies) or public (verifies).
public final class RSAKey: Sendable {
    /// The EVP_PKEY, built at init or, for a derived key, on first use. EVP_PKEY is safe for concurrent sign
    /// and verify once built; nothing mutates it after.
    private let built: Mutex<Built>
    /// A derived key's seed and size, until it is built.
    private let derivation: (seed: [UInt8], bits: Int32)?

    /// The pointer, in a box the mutex can hold (a raw pointer is not `Sendable`).
    private struct Built: @unchecked Sendable {
        var key: OpaquePointer?
    }

    private init(key: OpaquePointer) {
        self.built = Mutex(Built(key: key))
        self.derivation = nil
    }

    private init(seed: [UInt8], bits: Int32) {
        self.built = Mutex(Built(key: nil))
        self.derivation = (seed, bits)
    }

    deinit {
        if let key = self.built.withLock({ $0.key }) { CMockCDNCrypto_rsa_free(key) }
    }

    /// The key, derived now if it was not yet: a derivation searches for two 1,024-bit primes (tens to hundreds
    /// of milliseconds), which a configuration of a hundred apps must not pay at start for keys it may never use.
    private var key: OpaquePointer {
        self.built.withLock { built in
            if let key = built.key { return key }
            let derivation = self.derivation!
            let key = derivation.seed.withUnsafeBytes {
                CMockCDNCrypto_rsa_derive($0.baseAddress, $0.count, derivation.bits)
            }
            // libcrypto fails here only when it cannot allocate: nothing a caller could recover from.
            guard let key else { preconditionFailure("libcrypto could not derive an RSA key") }
            built.key = key
            return key
        }
    }

    /// Whether the key has been built (a derived one: used once); for tests of start-up's laziness.
    var isBuilt: Bool { self.built.withLock { $0.key != nil } }

    /// The key `seed` derives: the same in every process that has the seed (see `CMockCDNCrypto_rsa_derive`).
    /// It is derived on its first use, not here.
    ///
    /// - Parameters:
    ///   - seed: the bytes the key is derived from.
    ///   - bits: the modulus size.
    /// - Returns: the key.
    public static func derive(from seed: some ContiguousBytesView, bits: Int = 2048) -> RSAKey {
        RSAKey(seed: seed.withBytes { Array($0) }, bits: Int32(bits))
    }

    /// Generates a new key pair.
    ///
    /// - Parameter bits: the modulus size; CloudFront uses 2048.
    /// - Returns: a private key.
    /// - Throws: `MockCDNError.cryptoFailure` when libcrypto cannot generate one.
    public static func generate(bits: Int = 2048) throws -> RSAKey {
        guard let key = CMockCDNCrypto_rsa_generate(Int32(bits)) else { throw MockCDNError.cryptoFailure }
        return RSAKey(key: key)
    }

    /// Reads a PEM private key, PKCS#1 (`RSA PRIVATE KEY`) or PKCS#8 (`PRIVATE KEY`).
    ///
    /// - Parameter pem: the PEM text.
    /// - Throws: `MockCDNError.invalidKeyMaterial` when the text holds no unencrypted RSA private key.
    public convenience init(privateKeyPEM pem: String) throws {
        guard let key = pem.withBytes({ CMockCDNCrypto_rsa_private_from_pem($0.baseAddress!, $0.count) }) else {
            throw MockCDNError.invalidKeyMaterial
        }
        self.init(key: key)
    }

    /// Reads a PEM public key, SubjectPublicKeyInfo (`PUBLIC KEY`) or PKCS#1 (`RSA PUBLIC KEY`).
    ///
    /// - Parameter pem: the PEM text.
    /// - Throws: `MockCDNError.invalidKeyMaterial` when the text holds no RSA public key.
    public convenience init(publicKeyPEM pem: String) throws {
        guard let key = pem.withBytes({ CMockCDNCrypto_rsa_public_from_pem($0.baseAddress!, $0.count) }) else {
            throw MockCDNError.invalidKeyMaterial
        }
        self.init(key: key)
    }

    /// True when the key can sign.
    public var isPrivate: Bool { self.derivation != nil || CMockCDNCrypto_rsa_is_private(self.key) == 1 }

    /// The modulus size in bits.
    public var bits: Int { self.derivation.map { Int($0.bits) } ?? Int(CMockCDNCrypto_rsa_bits(self.key)) }

    /// The public half as PEM (SubjectPublicKeyInfo), the form `aws cloudfront` and CloudFront accept.
    public var publicKeyPEM: String {
        get throws { try self.pem(includePrivate: false) }
    }

    /// The private key as PEM (PKCS#8). Throws for a public key.
    public var privateKeyPEM: String {
        get throws { try self.pem(includePrivate: true) }
    }

    private func pem(includePrivate: Bool) throws -> String {
        var text: UnsafeMutablePointer<CChar>?
        var length = 0
        guard CMockCDNCrypto_rsa_to_pem(self.key, includePrivate ? 1 : 0, &text, &length) == 1, let text else {
            throw MockCDNError.invalidKeyMaterial
        }
        defer { CMockCDNCrypto_free(text) }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
    }

    /// Signs `message` with RSASSA-PKCS1-v1_5.
    ///
    /// - Parameters:
    ///   - message: the bytes to sign (a CloudFront policy, say).
    ///   - hash: SHA-1 (CloudFront's default) or SHA-256.
    /// - Returns: the signature, `bits / 8` bytes.
    /// - Throws: `MockCDNError.invalidKeyMaterial` for a public key, `cryptoFailure` if libcrypto fails.
    public func signature(for message: some ContiguousBytesView, hash: SignatureHash) throws -> [UInt8] {
        guard self.isPrivate else { throw MockCDNError.invalidKeyMaterial }
        let capacity = (self.bits + 7) / 8
        var written = 0
        let signature = message.withBytes { bytes in
            [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                let status = CMockCDNCrypto_rsa_sign(
                    self.key,
                    hash == .sha256 ? 1 : 0,
                    bytes.baseAddress,
                    bytes.count,
                    buffer.baseAddress!,
                    capacity,
                    &written
                )
                count = status == 1 ? written : 0
            }
        }
        guard !signature.isEmpty else { throw MockCDNError.cryptoFailure }
        return signature
    }

    /// Checks an RSASSA-PKCS1-v1_5 signature.
    ///
    /// - Parameters:
    ///   - signature: the signature bytes.
    ///   - message: the bytes that were signed.
    ///   - hash: the hash the signer used.
    /// - Returns: true when the signature is valid for this key.
    public func isValidSignature(
        _ signature: some ContiguousBytesView,
        for message: some ContiguousBytesView,
        hash: SignatureHash
    ) -> Bool {
        signature.withBytes { signatureBytes in
            message.withBytes { bytes in
                guard let signatureBase = signatureBytes.baseAddress, signatureBytes.count > 0 else { return false }
                return CMockCDNCrypto_rsa_verify(
                    self.key,
                    hash == .sha256 ? 1 : 0,
                    bytes.baseAddress,
                    bytes.count,
                    signatureBase,
                    signatureBytes.count
                ) == 1
            }
        }
    }
}
