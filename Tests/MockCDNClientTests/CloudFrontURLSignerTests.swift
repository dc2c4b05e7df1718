import Foundation
import MockCDNClient
import MockCDNCore
import MockCDNServer
import MockCDNTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client's CloudFront signer: its policies are MockCDN's and botocore's byte for byte, and what it signs
/// with an ECDSA P-256 or an RSA key (through its closure) reads from a real server.
@Suite("Client CloudFront signer")
struct CloudFrontURLSignerTests {
    static let ecdsa = try! ECKey.generate()
    static let ecdsaID = "KCLIENTEC00001"

    /// The demo app, which also accepts `ecdsa`'s public key.
    static var configuration: ServerConfiguration {
        var configuration = MockCDNTestServer.defaultConfiguration
        var demo = AppConfiguration.demo
        demo.keyPairs.append(.init(id: ecdsaID, status: .accepted, publicKeyPEM: try! ecdsa.publicKeyPEM))
        configuration.apps = [demo]
        return configuration
    }

    /// A signer whose closure signs with `key`, as an app's would with CryptoKit or Security.
    static func signer(
        _ id: String,
        _ key: CloudFrontKey,
        hash: CloudFrontURLSigner.HashAlgorithm
    ) -> CloudFrontURLSigner {
        CloudFrontURLSigner(keyPairID: id, hashAlgorithm: hash) { policy, hash in
            Data(try key.signature(for: [UInt8](policy), hash: hash == .sha256 ? .sha256 : .sha1))
        }
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func status(_ url: URL, cookies: CloudFrontCookies? = nil) async throws -> (Int, Data) {
        var request = URLRequest(url: url)
        cookies?.apply(to: &request)
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    static func tampered(_ url: URL) throws -> URL {
        let text = url.absoluteString
        let signature = try #require(URLComponents(string: text)?.queryItems?.first { $0.name == "Signature" }?.value)
        let middle = signature.index(signature.startIndex, offsetBy: signature.count / 2)
        let changed = signature.replacingCharacters(in: middle...middle, with: signature[middle] == "B" ? "C" : "B")
        return try #require(URL(string: text.replacingOccurrences(of: signature, with: changed)))
    }

    @Test("policies are the server's and botocore's bytes, whatever the resource holds")
    func policyBytes() {
        let expires = Date(timeIntervalSince1970: 1_900_000_000.75)
        for resource in ["https://cdn.example/demo/*", "http://127.0.0.1:1/demo/a b/\u{e9}\"\\x", "http://h/x?y=1&z=*"]
        {
            let policy = CloudFrontURLSigner.Policy(resource: resource, expires: expires)
            #expect(policy.json == CloudFrontPolicy(resource: resource, dateLessThan: 1_900_000_000).json)
            let full = CloudFrontURLSigner.Policy(
                resource: resource,
                expires: expires,
                notBefore: Date(timeIntervalSince1970: 1_800_000_000),
                ipAddress: "192.0.2.0/24"
            )
            let core = CloudFrontPolicy(
                resource: resource,
                dateLessThan: 1_900_000_000,
                dateGreaterThan: 1_800_000_000,
                sourceIP: "192.0.2.0/24"
            )
            #expect(full.json == core.json)
        }
    }

    @Test("a URL it cannot sign is refused, and a failing closure is signingFailed naming no key")
    func refusals() throws {
        struct KeyLocked: Error {}
        let failing = CloudFrontURLSigner(keyPairID: "K1") { _, _ in throw KeyLocked() }
        let expires = Date(timeIntervalSince1970: 2_000_000_000)
        #expect(throws: MockCDNClientError.signingFailed) {
            try failing.cannedURL(for: URL(string: "http://h/demo/x")!, expires: expires)
        }
        let good = Self.signer(Self.ecdsaID, .ecdsa(Self.ecdsa), hash: .sha1)
        for text in [
            "ftp://h/demo/x", "/demo/x", "http://h/demo/x#part", "http://h/demo/x?Signature=abc",
            "http://h/demo/x?w=1&Key-Pair-Id=K", "http://h/demo/x?Expires=1",
        ] {
            let url = try #require(URL(string: text))
            #expect(throws: MockCDNClientError.invalidURL, "\(text)") { try good.cannedURL(for: url, expires: expires) }
            #expect(throws: MockCDNClientError.invalidURL, "\(text)") {
                try good.customURL(for: url, policy: .init(resource: "http://h/*", expires: expires))
            }
        }
        #expect(throws: MockCDNClientError.invalidURL) {
            try good.cookies(policy: .init(resource: "/demo/*", expires: expires))
        }
    }

    @Test(
        "ECDSA and RSA links, custom links and cookies it signs read from the server; tampered ones are 403",
        arguments: [CloudFrontURLSigner.HashAlgorithm.sha1, .sha256]
    )
    func endToEnd(hash: CloudFrontURLSigner.HashAlgorithm) async throws {
        try await MockCDNTestServer.withRunning(Self.configuration) { server in
            let media = server.url("/demo/fixtures/sample.pdf")
            let expected = try Data(contentsOf: Self.repository.appendingPathComponent("Fixtures/media/sample.pdf"))
            let rsa = try MediaApp(.demo).activeKeyPair
            let signers = [
                Self.signer(Self.ecdsaID, .ecdsa(Self.ecdsa), hash: hash),
                Self.signer(rsa.id, rsa.key, hash: hash),
            ]
            let expires = Date().addingTimeInterval(600)
            for signer in signers {
                let canned = try signer.cannedURL(for: media, expires: expires)
                let custom = try signer.customURL(
                    for: media,
                    policy: .init(resource: server.url("/demo/fixtures/").absoluteString + "*", expires: expires)
                )
                for link in [canned, custom] {
                    #expect(link.absoluteString.contains("Key-Pair-Id=\(signer.keyPairID)"))
                    #expect(link.absoluteString.hasSuffix("&Hash-Algorithm=SHA256") == (hash == .sha256))
                    #expect(try await Self.status(link) == (200, expected), "\(link)")
                    #expect(try await Self.status(try Self.tampered(link)).0 == 403)
                }
                let cookies = try signer.cookies(
                    policy: .init(resource: server.url("/demo/fixtures/").absoluteString + "*", expires: expires)
                )
                #expect(cookies.path == "/demo/fixtures/")
                #expect((cookies.values["CloudFront-Hash-Algorithm"] != nil) == (hash == .sha256))
                #expect(try await Self.status(media, cookies: cookies) == (200, expected))
                let cannedCookies = try signer.cannedCookies(for: media, expires: expires)
                #expect(cannedCookies.values["CloudFront-Expires"] == String(Int64(expires.timeIntervalSince1970)))
                #expect(try await Self.status(media, cookies: cannedCookies) == (200, expected))
                var broken = cannedCookies.values
                let signature = try #require(broken["CloudFront-Signature"])
                let middle = signature.index(signature.startIndex, offsetBy: signature.count / 2)
                broken["CloudFront-Signature"] = signature.replacingCharacters(
                    in: middle...middle,
                    with: signature[middle] == "B" ? "C" : "B"
                )
                let refused = try CloudFrontCookies(values: broken, path: cannedCookies.path)
                #expect(try await Self.status(media, cookies: refused).0 == 403)
                // A canned policy covers exactly its URL.
                let other = server.url("/demo/fixtures/sample.jpg")
                #expect(try await Self.status(other, cookies: cannedCookies).0 == 403)
            }
            // Expired by the server's clock.
            let past = try Self.signer(Self.ecdsaID, .ecdsa(Self.ecdsa), hash: hash)
                .cannedURL(for: media, expires: Date().addingTimeInterval(-1))
            #expect(try await Self.status(past).0 == 403)
        }
    }
}
