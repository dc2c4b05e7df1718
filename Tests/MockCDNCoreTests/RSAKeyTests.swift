import Foundation
import Testing

@testable import MockCDNCore

/// RSA against the `openssl` command line, in both directions: what one signs, the other verifies.
@Suite("RSA")
struct RSAKeyTests {
    static let message = Array(#"{"Statement":[{"Resource":"https://cdn/demo/*"}]}"#.utf8)

    @Test("a signature made by the openssl CLI verifies in Swift", arguments: [SignatureHash.sha1, .sha256])
    func opensslSignsSwiftVerifies(hash: SignatureHash) async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(Self.message).write(to: folder.appendingPathComponent("message"))
        try #require(
            await runTool(["openssl", "genrsa", "-traditional", "-out", "key.pem", "2048"], in: folder).status == 0
        )
        try #require(
            await runTool(["openssl", "rsa", "-in", "key.pem", "-pubout", "-out", "pub.pem"], in: folder).status == 0
        )
        let digest = hash == .sha256 ? "-sha256" : "-sha1"
        let signed = try await runTool(
            ["openssl", "dgst", digest, "-sign", "key.pem", "-out", "sig", "message"],
            in: folder
        )
        try #require(signed.status == 0)

        let signature = try [UInt8](Data(contentsOf: folder.appendingPathComponent("sig")))
        let publicKey = try RSAKey(
            publicKeyPEM: String(contentsOf: folder.appendingPathComponent("pub.pem"), encoding: .utf8)
        )
        let privateKey = try RSAKey(
            privateKeyPEM: String(contentsOf: folder.appendingPathComponent("key.pem"), encoding: .utf8)
        )
        #expect(!publicKey.isPrivate)
        #expect(privateKey.isPrivate)
        #expect(publicKey.bits == 2048)
        #expect(publicKey.isValidSignature(signature, for: Self.message, hash: hash))
        #expect(privateKey.isValidSignature(signature, for: Self.message, hash: hash))
        // The other hash, a changed message, a changed signature: all rejected.
        #expect(!publicKey.isValidSignature(signature, for: Self.message, hash: hash == .sha1 ? .sha256 : .sha1))
        #expect(!publicKey.isValidSignature(signature, for: Self.message + [0x20], hash: hash))
        var tampered = signature
        tampered[100] ^= 0x01
        #expect(!publicKey.isValidSignature(tampered, for: Self.message, hash: hash))
        // RSASSA-PKCS1-v1_5 is deterministic: Swift's signature with the same key is byte-identical.
        #expect(try privateKey.signature(for: Self.message, hash: hash) == signature)
    }

    @Test("a signature made in Swift verifies with the openssl CLI", arguments: [SignatureHash.sha1, .sha256])
    func swiftSignsOpensslVerifies(hash: SignatureHash) async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try RSAKey.generate(bits: 2048)
        #expect(key.bits == 2048)
        let signature = try key.signature(for: Self.message, hash: hash)
        #expect(signature.count == 256)
        try Data(Self.message).write(to: folder.appendingPathComponent("message"))
        try Data(signature).write(to: folder.appendingPathComponent("sig"))
        try key.publicKeyPEM.write(to: folder.appendingPathComponent("pub.pem"), atomically: true, encoding: .utf8)
        let digest = hash == .sha256 ? "-sha256" : "-sha1"
        let verify = ["openssl", "dgst", digest, "-verify", "pub.pem", "-signature", "sig", "message"]
        let verified = try await runTool(verify, in: folder)
        #expect(verified.status == 0)
        #expect(verified.output.contains("Verified OK"))

        try Data(Self.message + [0x20]).write(to: folder.appendingPathComponent("message"))
        #expect(try await runTool(verify, in: folder).status != 0)
    }

    @Test("PEM export round-trips, and PKCS#1 public keys are read too")
    func pemRoundTrip() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try RSAKey.generate()
        let privatePEM = try key.privateKeyPEM
        #expect(privatePEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try RSAKey(privateKeyPEM: privatePEM)
        #expect(try reloaded.publicKeyPEM == key.publicKeyPEM)

        try key.publicKeyPEM.write(to: folder.appendingPathComponent("pub.pem"), atomically: true, encoding: .utf8)
        let converted = try await runTool(
            ["openssl", "rsa", "-pubin", "-in", "pub.pem", "-RSAPublicKey_out", "-out", "pkcs1.pem"],
            in: folder
        )
        try #require(converted.status == 0)
        let pkcs1 = try String(contentsOf: folder.appendingPathComponent("pkcs1.pem"), encoding: .utf8)
        #expect(pkcs1.hasPrefix("-----BEGIN RSA PUBLIC KEY-----"))
        let publicKey = try RSAKey(publicKeyPEM: pkcs1)
        #expect(
            publicKey.isValidSignature(
                try key.signature(for: Self.message, hash: .sha1),
                for: Self.message,
                hash: .sha1
            )
        )
        #expect(throws: MockCDNError.invalidKeyMaterial) { try publicKey.privateKeyPEM }
        #expect(throws: MockCDNError.invalidKeyMaterial) { try publicKey.signature(for: Self.message, hash: .sha1) }
    }

    @Test(
        "garbage PEM is refused",
        arguments: ["", "not a key", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"]
    )
    func garbage(pem: String) {
        #expect(throws: MockCDNError.invalidKeyMaterial) { try RSAKey(publicKeyPEM: pem) }
        #expect(throws: MockCDNError.invalidKeyMaterial) { try RSAKey(privateKeyPEM: pem) }
    }

    @Test("a derived key is the same for the same seed, differs for another, and openssl checks it")
    func derived() async throws {
        let seed = HMAC.sha256("mockcdn-cloudfront-key/acme/K1", key: "acme-secret-at-least-32-bytes-long!!")
        let first = RSAKey.derive(from: seed)
        let again = RSAKey.derive(from: seed)
        #expect(try first.privateKeyPEM == again.privateKeyPEM)
        #expect(first.bits == 2048 && first.isPrivate)
        let other = RSAKey.derive(from: HMAC.sha256("mockcdn-cloudfront-key/acme/K2", key: "another-secret"))
        #expect(try other.publicKeyPEM != first.publicKeyPEM)
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(try first.privateKeyPEM.utf8).write(to: folder.appendingPathComponent("derived.pem"))
        let check = try await runTool(["openssl", "rsa", "-check", "-noout", "-in", "derived.pem"], in: folder)
        #expect(check.status == 0 && check.output.contains("RSA key ok"), "\(check.output)")
        let signature = try first.signature(for: Array("policy".utf8), hash: .sha256)
        #expect(again.isValidSignature(signature, for: Array("policy".utf8), hash: .sha256))
    }

    @Test("an app's derived key is built on its first use, not when the app is loaded")
    func derivedLazily() throws {
        let app = try MediaApp(
            AppConfiguration(
                appID: "acme",
                apiKey: "acme-key",
                apiSecret: "acme-secret-at-least-32-bytes-long!!",
                region: "us"
            )
        )
        guard case .rsa(let key) = app.activeKeyPair.key else {
            Issue.record("an app without keys gets a derived RSA pair")
            return
        }
        #expect(!key.isBuilt)
        #expect(key.isPrivate && key.bits == 2048)
        #expect(!key.isBuilt)
        let signature = try key.signature(for: Array("policy".utf8), hash: .sha1)
        #expect(key.isBuilt)
        // The same key as one derived at once from the same seed, as `mockcdn sign` derives it.
        let seed = HMAC.sha256("mockcdn-cloudfront-key/acme/" + app.activeKeyPair.id, key: app.configuration.apiSecret)
        #expect(RSAKey.derive(from: seed).isValidSignature(signature, for: Array("policy".utf8), hash: .sha1))
    }
}
