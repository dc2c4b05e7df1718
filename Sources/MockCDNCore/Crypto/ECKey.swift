import CMockCDNCrypto

/// An ECDSA key on P-256 for CloudFront-style signatures: private (signs and verifies) or public (verifies).
///
/// CloudFront's key groups take ECDSA P-256 keys beside RSA-2048 ones; no other curve. Signatures are DER, as
/// `openssl dgst -sign` and the SDKs make them.
public final class ECKey: Sendable {
    /// The most bytes a DER-encoded P-256 signature takes (two 33-byte INTEGERs and their headers).
    public static let maximumSignatureLength = Int(CMOCKCDN_ECDSA_P256_MAX_SIGNATURE)

    // EVP_PKEY is safe for concurrent sign and verify once built; nothing mutates it after init.
    private nonisolated(unsafe) let key: OpaquePointer

    private init(key: OpaquePointer) {
        self.key = key
    }

    deinit { CMockCDNCrypto_ec_free(self.key) }

    /// Generates a new P-256 key pair.
    ///
    /// - Returns: a private key.
    /// - Throws: `MockCDNError.cryptoFailure` when libcrypto cannot generate one.
    public static func generate() throws -> ECKey {
        guard let key = CMockCDNCrypto_ec_generate() else { throw MockCDNError.cryptoFailure }
        return ECKey(key: key)
    }

    /// Reads a PEM private key, SEC1 (`EC PRIVATE KEY`, what `openssl ecparam -genkey` writes) or PKCS#8
    /// (`PRIVATE KEY`).
    ///
    /// - Parameter pem: the PEM text.
    /// - Throws: `MockCDNError.invalidKeyMaterial` when the text holds no unencrypted P-256 private key.
    public convenience init(privateKeyPEM pem: String) throws {
        guard let key = pem.withBytes({ CMockCDNCrypto_ec_private_from_pem($0.baseAddress!, $0.count) }) else {
            throw MockCDNError.invalidKeyMaterial
        }
        self.init(key: key)
    }

    /// Reads a PEM public key (SubjectPublicKeyInfo, `PUBLIC KEY`: what CloudFront's console takes).
    ///
    /// - Parameter pem: the PEM text.
    /// - Throws: `MockCDNError.invalidKeyMaterial` when the text holds no P-256 public key.
    public convenience init(publicKeyPEM pem: String) throws {
        guard let key = pem.withBytes({ CMockCDNCrypto_ec_public_from_pem($0.baseAddress!, $0.count) }) else {
            throw MockCDNError.invalidKeyMaterial
        }
        self.init(key: key)
    }

    /// True when the key can sign.
    public var isPrivate: Bool { CMockCDNCrypto_ec_is_private(self.key) == 1 }

    /// The public half as PEM (SubjectPublicKeyInfo).
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
        guard CMockCDNCrypto_ec_to_pem(self.key, includePrivate ? 1 : 0, &text, &length) == 1, let text else {
            throw MockCDNError.invalidKeyMaterial
        }
        defer { CMockCDNCrypto_free(text) }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
    }

    /// Signs `message` with ECDSA.
    ///
    /// - Parameters:
    ///   - message: the bytes to sign (a CloudFront policy, say).
    ///   - hash: SHA-1 (CloudFront's default) or SHA-256.
    /// - Returns: the DER signature, at most `maximumSignatureLength` bytes; a new one each call (ECDSA
    ///   takes a fresh random nonce).
    /// - Throws: `MockCDNError.invalidKeyMaterial` for a public key, `cryptoFailure` if libcrypto fails.
    public func signature(for message: some ContiguousBytesView, hash: SignatureHash) throws -> [UInt8] {
        guard self.isPrivate else { throw MockCDNError.invalidKeyMaterial }
        let capacity = Self.maximumSignatureLength
        var written = 0
        let signature = message.withBytes { bytes in
            [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                let status = CMockCDNCrypto_ec_sign(
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

    /// Checks a DER-encoded ECDSA signature; any other encoding of the same numbers (raw `r || s`, BER,
    /// trailing bytes) is refused, as a signature that is not exactly what was signed.
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
                return CMockCDNCrypto_ec_verify(
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
