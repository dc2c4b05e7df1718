/// The key of a CloudFront key pair: RSA or ECDSA P-256, the two kinds CloudFront's key groups take.
///
/// A link names its key by `Key-Pair-Id` alone, never by algorithm, so the key decides how its signature is
/// checked: RSASSA-PKCS1-v1_5 for RSA, DER-encoded ECDSA for P-256, over SHA-1 or SHA-256 alike.
public enum CloudFrontKey: Sendable {
    case rsa(RSAKey)
    case ecdsa(ECKey)

    /// What CloudFront calls the key's kind, for listings and messages.
    public var algorithm: String {
        switch self {
        case .rsa: "RSA"
        case .ecdsa: "ECDSA-P256"
        }
    }

    /// Reads a PEM private key of either kind: RSA (PKCS#1 or PKCS#8), else P-256 (SEC1 or PKCS#8).
    ///
    /// - Parameter pem: the PEM text.
    /// - Throws: `MockCDNError.invalidKeyMaterial` when the text holds neither (another curve, say).
    public init(privateKeyPEM pem: String) throws {
        if let key = try? RSAKey(privateKeyPEM: pem) {
            self = .rsa(key)
        } else if let key = try? ECKey(privateKeyPEM: pem) {
            self = .ecdsa(key)
        } else {
            throw MockCDNError.invalidKeyMaterial("no unencrypted RSA or ECDSA P-256 private key in the PEM text")
        }
    }

    /// Reads a PEM public key of either kind: RSA (SubjectPublicKeyInfo or PKCS#1), else P-256
    /// (SubjectPublicKeyInfo).
    ///
    /// - Parameter pem: the PEM text.
    /// - Throws: `MockCDNError.invalidKeyMaterial` when the text holds neither.
    public init(publicKeyPEM pem: String) throws {
        if let key = try? RSAKey(publicKeyPEM: pem) {
            self = .rsa(key)
        } else if let key = try? ECKey(publicKeyPEM: pem) {
            self = .ecdsa(key)
        } else {
            throw MockCDNError.invalidKeyMaterial("no RSA or ECDSA P-256 public key in the PEM text")
        }
    }

    /// True when the key can sign.
    public var isPrivate: Bool {
        switch self {
        case .rsa(let key): key.isPrivate
        case .ecdsa(let key): key.isPrivate
        }
    }

    /// The public half as PEM (SubjectPublicKeyInfo), the form CloudFront's public keys take.
    public var publicKeyPEM: String {
        get throws {
            switch self {
            case .rsa(let key): try key.publicKeyPEM
            case .ecdsa(let key): try key.publicKeyPEM
            }
        }
    }

    /// The private key as PEM (PKCS#8). Throws for a public key.
    public var privateKeyPEM: String {
        get throws {
            switch self {
            case .rsa(let key): try key.privateKeyPEM
            case .ecdsa(let key): try key.privateKeyPEM
            }
        }
    }

    /// Signs `message` as CloudFront's signers do with this kind of key.
    ///
    /// - Parameters:
    ///   - message: the policy bytes.
    ///   - hash: SHA-1 or SHA-256.
    /// - Returns: the signature (RSA: the modulus' length; ECDSA: DER, at most 72 bytes).
    /// - Throws: `MockCDNError.invalidKeyMaterial` for a public key, `cryptoFailure` if libcrypto fails.
    public func signature(for message: some ContiguousBytesView, hash: SignatureHash) throws -> [UInt8] {
        switch self {
        case .rsa(let key): try key.signature(for: message, hash: hash)
        case .ecdsa(let key): try key.signature(for: message, hash: hash)
        }
    }

    /// Checks a signature made by this key's kind of signer.
    ///
    /// - Parameters:
    ///   - signature: the decoded `Signature`.
    ///   - message: the bytes that were signed.
    ///   - hash: the hash `Hash-Algorithm` names.
    /// - Returns: true when the signature is valid for this key.
    public func isValidSignature(
        _ signature: some ContiguousBytesView,
        for message: some ContiguousBytesView,
        hash: SignatureHash
    ) -> Bool {
        switch self {
        case .rsa(let key): key.isValidSignature(signature, for: message, hash: hash)
        case .ecdsa(let key): key.isValidSignature(signature, for: message, hash: hash)
        }
    }
}
