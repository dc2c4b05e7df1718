import Foundation
import MockCDNCore
import Testing

/// ECDSA P-256, CloudFront's other key type: vectors the `openssl` command line made, as AWS's docs sign
/// (`openssl dgst -sha1 -sign ec.pem`, and `-sha256` for `Hash-Algorithm=SHA256`), and the CLI live in both
/// directions.
@Suite("ECDSA P-256")
struct ECKeyTests {
    /// A test key made by `openssl ecparam -name prime256v1 -genkey -noout` (SEC1, `EC PRIVATE KEY`); it signs
    /// nothing but these tests.
    static let privatePEM = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEID0P85v/4gfCVEbKbf0pgugG02edajMqDKxM8RCt1QaeoAoGCCqGSM49
        AwEHoUQDQgAEb0eHXwp7E4SbacwI/WvLTC/LxRHFEwh8mLscNFstIWxC72h43UD+
        qXY2uxe71Ouuna3chSOVRoyIcDwv1yfEpg==
        -----END EC PRIVATE KEY-----

        """

    /// Its public half, by `openssl ec -pubout`.
    static let publicPEM = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEb0eHXwp7E4SbacwI/WvLTC/LxRHF
        Ewh8mLscNFstIWxC72h43UD+qXY2uxe71Ouuna3chSOVRoyIcDwv1yfEpg==
        -----END PUBLIC KEY-----

        """

    static let resource = "https://d111111abcdef8.cloudfront.net/demo/images/photo.jpg"
    /// The canned policy of `resource` until 2000000000, as CloudFront rebuilds it.
    static let policy = CloudFrontPolicy.cannedJSON(resource: resource, expires: "2000000000")

    /// `openssl dgst -sha1 -sign ec.pem policy` and `openssl dgst -sha256 -sign ec.pem policy`, base64 (DER).
    static let vectors: [(SignatureHash, String)] = [
        (
            .sha1,
            "MEQCIH+FmnFOh+TKoLWJbERyDYRm2PxZMylUuQNV0fhRn8VjAiB4tyQn5oDFzm6iT/U8DJWlyD03XzSzy1TrsL1qzziNyw=="
        ),
        (
            .sha256,
            "MEYCIQDYiP9kY2dSTsWiiNshvqgiSpMgTLfTo/uq4i4KXlCFWgIhAP9H41XdoRP0XX10zcpgUKT+I/77mGI45KBVIjoBNMLx"
        ),
    ]

    static func bytes(_ base64: String) throws -> [UInt8] {
        try [UInt8](#require(Data(base64Encoded: base64)))
    }

    @Test("openssl's signatures verify with the public and the private key, for their hash only", arguments: vectors)
    func opensslVectors(hash: SignatureHash, base64: String) throws {
        let signature = try Self.bytes(base64)
        let publicKey = try ECKey(publicKeyPEM: Self.publicPEM)
        let privateKey = try ECKey(privateKeyPEM: Self.privatePEM)
        #expect(!publicKey.isPrivate && privateKey.isPrivate)
        #expect(publicKey.isValidSignature(signature, for: Self.policy, hash: hash))
        #expect(privateKey.isValidSignature(signature, for: Self.policy, hash: hash))
        #expect(!publicKey.isValidSignature(signature, for: Self.policy, hash: hash == .sha1 ? .sha256 : .sha1))
        #expect(!publicKey.isValidSignature(signature, for: Self.policy + " ", hash: hash))
        #expect(!publicKey.isValidSignature([UInt8](), for: Self.policy, hash: hash))
        // Any other encoding of the same r and s is refused: a trailing byte, the raw r || s of IEEE P1363,
        // and a BER long-form length.
        #expect(!publicKey.isValidSignature(signature + [0], for: Self.policy, hash: hash))
        #expect(!publicKey.isValidSignature(try Self.rawRS(signature), for: Self.policy, hash: hash))
        let longForm = [0x30, 0x81, signature[1]] + signature.dropFirst(2)
        #expect(!publicKey.isValidSignature(longForm, for: Self.policy, hash: hash))
        for index in [4, signature.count / 2, signature.count - 1] {
            var tampered = signature
            tampered[index] ^= 0x01
            #expect(!publicKey.isValidSignature(tampered, for: Self.policy, hash: hash), "byte \(index)")
        }
    }

    /// The two INTEGERs of a DER ECDSA-Sig-Value as 32 bytes each, without their signs' zero bytes.
    static func rawRS(_ der: [UInt8]) throws -> [UInt8] {
        try #require(der[0] == 0x30 && der[2] == 0x02)
        let rLength = Int(der[3])
        let r = der[4..<(4 + rLength)]
        let sLength = Int(der[5 + rLength])
        let s = der[(6 + rLength)..<(6 + rLength + sLength)]
        func fixed(_ integer: ArraySlice<UInt8>) -> [UInt8] {
            let trimmed = Array(integer.drop { $0 == 0 })
            return [UInt8](repeating: 0, count: 32 - trimmed.count) + trimmed
        }
        return fixed(r) + fixed(s)
    }

    @Test(
        "a signature made in Swift verifies with the openssl CLI; each is new, DER and at most 72 bytes",
        arguments: SignatureHash.allCases
    )
    func swiftSignsOpensslVerifies(hash: SignatureHash) async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try ECKey.generate()
        let signature = try key.signature(for: Self.policy, hash: hash)
        #expect(signature.count <= ECKey.maximumSignatureLength && signature.first == 0x30)
        #expect(try key.signature(for: Self.policy, hash: hash) != signature, "ECDSA takes a fresh nonce")
        try Data(Self.policy.utf8).write(to: folder.appendingPathComponent("policy"))
        try Data(signature).write(to: folder.appendingPathComponent("sig"))
        try key.publicKeyPEM.write(to: folder.appendingPathComponent("pub.pem"), atomically: true, encoding: .utf8)
        let digest = hash == .sha256 ? "-sha256" : "-sha1"
        let verify = ["openssl", "dgst", digest, "-verify", "pub.pem", "-signature", "sig", "policy"]
        let verified = try await runTool(verify, in: folder)
        #expect(verified.status == 0 && verified.output.contains("Verified OK"), "\(verified.output)")
        try Data((Self.policy + " ").utf8).write(to: folder.appendingPathComponent("policy"))
        #expect(try await runTool(verify, in: folder).status != 0)
    }

    @Test("a key the openssl CLI makes, SEC1 or PKCS#8, signs what openssl verifies, and the other way round")
    func opensslKeys() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(Self.policy.utf8).write(to: folder.appendingPathComponent("policy"))
        let steps = [
            ["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ec.pem"],
            ["openssl", "pkcs8", "-topk8", "-nocrypt", "-in", "ec.pem", "-out", "pkcs8.pem"],
            ["openssl", "ec", "-in", "ec.pem", "-pubout", "-out", "pub.pem"],
            ["openssl", "dgst", "-sha256", "-sign", "pkcs8.pem", "-out", "sig", "policy"],
        ]
        for step in steps { try #require(try await runTool(step, in: folder).status == 0, "\(step)") }
        func text(_ name: String) throws -> String {
            try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }
        let sec1 = try ECKey(privateKeyPEM: try text("ec.pem"))
        let pkcs8 = try ECKey(privateKeyPEM: try text("pkcs8.pem"))
        let publicKey = try ECKey(publicKeyPEM: try text("pub.pem"))
        #expect(try sec1.publicKeyPEM == (try text("pub.pem")))
        #expect(try pkcs8.publicKeyPEM == (try text("pub.pem")))
        #expect(try pkcs8.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let opensslSignature = try [UInt8](Data(contentsOf: folder.appendingPathComponent("sig")))
        #expect(publicKey.isValidSignature(opensslSignature, for: Self.policy, hash: .sha256))
        #expect(
            publicKey.isValidSignature(try sec1.signature(for: Self.policy, hash: .sha1), for: Self.policy, hash: .sha1)
        )
        #expect(throws: MockCDNError.invalidKeyMaterial) { try publicKey.signature(for: Self.policy, hash: .sha1) }
        #expect(throws: MockCDNError.invalidKeyMaterial) { try publicKey.privateKeyPEM }
    }

    @Test("keys CloudFront refuses are refused: another curve, RSA, encrypted and garbage PEM")
    func refusedKeys() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let steps = [
            ["openssl", "ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", "p384.pem"],
            ["openssl", "ec", "-in", "p384.pem", "-pubout", "-out", "p384.pub.pem"],
            ["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "p256.pem"],
            ["openssl", "ec", "-in", "p256.pem", "-aes128", "-passout", "pass:secret", "-out", "encrypted.pem"],
        ]
        for step in steps { try #require(try await runTool(step, in: folder).status == 0, "\(step)") }
        func text(_ name: String) throws -> String {
            try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }
        for name in ["p384.pem", "encrypted.pem"] {
            #expect(throws: MockCDNError.invalidKeyMaterial, "\(name)") { try ECKey(privateKeyPEM: try text(name)) }
            #expect(throws: MockCDNError.invalidKeyMaterial, "\(name)") {
                try CloudFrontKey(privateKeyPEM: try text(name))
            }
        }
        for name in ["p384.pub.pem"] {
            #expect(throws: MockCDNError.invalidKeyMaterial, "\(name)") { try ECKey(publicKeyPEM: try text(name)) }
            #expect(throws: MockCDNError.invalidKeyMaterial, "\(name)") {
                try CloudFrontKey(publicKeyPEM: try text(name))
            }
        }
        let rsa = try RSAKey.generate()
        #expect(throws: MockCDNError.invalidKeyMaterial) { try ECKey(privateKeyPEM: try rsa.privateKeyPEM) }
        #expect(throws: MockCDNError.invalidKeyMaterial) { try ECKey(publicKeyPEM: try rsa.publicKeyPEM) }
        #expect(throws: MockCDNError.invalidKeyMaterial) { try RSAKey(privateKeyPEM: Self.privatePEM) }
        #expect(throws: MockCDNError.invalidKeyMaterial) { try RSAKey(publicKeyPEM: Self.publicPEM) }
        for garbage in ["", "not a key", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"] {
            #expect(throws: MockCDNError.invalidKeyMaterial) { try ECKey(privateKeyPEM: garbage) }
            #expect(throws: MockCDNError.invalidKeyMaterial) { try ECKey(publicKeyPEM: garbage) }
        }
    }

    @Test("CloudFrontKey reads either kind from its PEM and signs and verifies as that kind")
    func eitherKind() throws {
        let ecdsa = try CloudFrontKey(privateKeyPEM: Self.privatePEM)
        guard case .ecdsa = ecdsa else {
            Issue.record("not read as ECDSA")
            return
        }
        #expect(ecdsa.algorithm == "ECDSA-P256" && ecdsa.isPrivate)
        let verifying = try CloudFrontKey(publicKeyPEM: Self.publicPEM)
        #expect(!verifying.isPrivate)
        #expect(try verifying.publicKeyPEM == Self.publicPEM)
        for (hash, base64) in Self.vectors {
            #expect(verifying.isValidSignature(try Self.bytes(base64), for: Self.policy, hash: hash))
        }
        let rsa = try RSAKey.generate()
        let both = try CloudFrontKey(privateKeyPEM: try rsa.privateKeyPEM)
        guard case .rsa = both else {
            Issue.record("not read as RSA")
            return
        }
        #expect(both.algorithm == "RSA")
        let signature = try both.signature(for: Self.policy, hash: .sha256)
        #expect(signature.count == 256)
        #expect(
            try CloudFrontKey(publicKeyPEM: try rsa.publicKeyPEM).isValidSignature(
                signature,
                for: Self.policy,
                hash: .sha256
            )
        )
        // A signature of one kind never passes for the other.
        #expect(!verifying.isValidSignature(signature, for: Self.policy, hash: .sha256))
    }

    /// A credential as a request carries it.
    static func credential(_ items: [(String, String)]) throws -> CloudFrontCredential {
        try #require(CloudFrontCredential(query: items.map { (name: $0.0, value: $0.1) }))
    }

    static func cloudFrontBase64(_ base64: String) -> String {
        String(base64.map { $0 == "+" ? "-" : $0 == "=" ? "_" : $0 == "/" ? "~" : $0 })
    }

    @Test(
        "the verifier takes openssl's ECDSA signatures of a canned policy, and refuses them altered",
        arguments: vectors
    )
    func verifierCanned(hash: SignatureHash, base64: String) throws {
        let pair = CloudFrontKeyPair(
            id: "KEC00000000001",
            key: try CloudFrontKey(publicKeyPEM: Self.publicPEM),
            status: .active
        )
        func verify(
            _ signature: String,
            expires: String = "2000000000",
            algorithm: String? = hash == .sha256 ? "SHA256" : nil
        ) throws {
            var items = [("Expires", expires), ("Signature", signature), ("Key-Pair-Id", pair.id)]
            if let algorithm { items.append(("Hash-Algorithm", algorithm)) }
            try CloudFrontVerifier.verify(
                try Self.credential(items),
                resources: [Self.resource],
                now: 1_900_000_000,
                clientAddress: "127.0.0.1",
                keyPair: { $0 == pair.id ? pair : nil }
            )
        }
        let signature = Self.cloudFrontBase64(base64)
        try verify(signature)
        #expect(throws: AccessDenied.signatureMismatch) { try verify(signature, expires: "2000000001") }
        #expect(throws: AccessDenied.signatureMismatch) {
            try verify(signature, algorithm: hash == .sha256 ? nil : "SHA256")
        }
        let raw = Base64.encode(try Self.rawRS(try Self.bytes(base64)), .cloudFront)
        #expect(throws: AccessDenied.signatureMismatch) { try verify(raw) }
        let middle = signature.index(signature.startIndex, offsetBy: signature.count / 2)
        let tampered = signature.replacingCharacters(in: middle...middle, with: signature[middle] == "B" ? "C" : "B")
        #expect(throws: AccessDenied.signatureMismatch) { try verify(tampered) }
        let retired = CloudFrontKeyPair(id: pair.id, key: pair.key, status: .retired)
        #expect(throws: AccessDenied.retiredKeyPair) {
            try CloudFrontVerifier.verify(
                try Self.credential([("Expires", "2000000000"), ("Signature", signature), ("Key-Pair-Id", pair.id)]),
                resources: [Self.resource],
                now: 1_900_000_000,
                clientAddress: nil,
                keyPair: { _ in retired }
            )
        }
    }

    @Test(
        "CloudFrontSigner signs canned and custom links and cookies with an ECDSA key that the verifier takes",
        arguments: SignatureHash.allCases
    )
    func signerRoundTrip(hash: SignatureHash) throws {
        let pair = CloudFrontKeyPair(
            id: "KEC00000000001",
            key: try CloudFrontKey(privateKeyPEM: Self.privatePEM),
            status: .active
        )
        let signer = CloudFrontSigner(keyPair: pair)
        let lookup: (String) -> CloudFrontKeyPair? = { $0 == pair.id ? pair : nil }
        let canned = try signer.cannedURL(Self.resource, expires: 2_000_000_000, hash: hash)
        let custom = try signer.customURL(
            Self.resource,
            policy: CloudFrontPolicy(
                resource: "https://d111111abcdef8.cloudfront.net/demo/*",
                dateLessThan: 2_000_000_000
            ),
            hash: hash
        )
        for link in [canned, custom] {
            let query = try #require(URLComponents(string: link)?.queryItems).map {
                (name: $0.name, value: $0.value ?? "")
            }
            let credential = try #require(CloudFrontCredential(query: query))
            #expect(credential.hashAlgorithm == (hash == .sha256 ? "SHA256" : nil))
            let validity = try CloudFrontVerifier.verify(
                credential,
                resources: [Self.resource],
                now: 1_900_000_000,
                clientAddress: nil,
                keyPair: lookup
            )
            #expect(validity.expiresAt == 2_000_000_000)
            #expect(throws: AccessDenied.self) {
                try CloudFrontVerifier.verify(
                    credential,
                    resources: ["https://other.example/demo/images/photo.jpg"],
                    now: 1_900_000_000,
                    clientAddress: nil,
                    keyPair: lookup
                )
            }
        }
        let cookies = try signer.cookies(policy: nil, resource: Self.resource, expires: 2_000_000_000, hash: hash)
        let credential = try #require(CloudFrontCredential { name in cookies.first { $0.name == name }?.value })
        try CloudFrontVerifier.verify(
            credential,
            resources: [Self.resource],
            now: 1_900_000_000,
            clientAddress: nil,
            keyPair: lookup
        )
    }
}
