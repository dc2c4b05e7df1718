import Foundation
import MockCDNCore
import MockCDNPoolWatchdog
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// CloudFront links and cookies signed with ECDSA P-256 keys, against a real server: an app whose active key
/// is ECDSA (it issues ECDSA-signed links), and the demo app with an accepted and a retired ECDSA key beside
/// its RSA one.
@Suite("CloudFront ECDSA keys")
struct CloudFrontECDSATests {
    static let active = try! ECKey.generate()
    static let accepted = try! ECKey.generate()
    static let retired = try! ECKey.generate()

    /// `ecapp`: one active ECDSA key pair (private PEM). The demo app keeps its RSA pair and gains a
    /// verify-only ECDSA pair and a retired one.
    static let apps: [AppConfiguration] = {
        var demo = AppConfiguration.demo
        demo.keyPairs += [
            .init(id: "KECACCEPTED001", status: .accepted, publicKeyPEM: try! accepted.publicKeyPEM),
            .init(id: "KECRETIRED0001", status: .retired, publicKeyPEM: try! retired.publicKeyPEM),
        ]
        let ecapp = AppConfiguration(
            appID: "ecapp",
            apiKey: "ecapp-key",
            apiSecret: "ecapp-secret-for-tests-only-32bytes!",
            region: "us",
            keyPairs: [.init(id: "KECACTIVE00001", status: .active, privateKeyPEM: try! active.privateKeyPEM)]
        )
        return [demo, ecapp]
    }()

    static func signer(_ id: String, _ key: ECKey, _ status: CloudFrontKeyPair.Status = .accepted) -> CloudFrontSigner {
        CloudFrontSigner(keyPair: CloudFrontKeyPair(id: id, key: .ecdsa(key), status: status))
    }

    /// Runs `body` with a text object of the demo app stored; gives its URL without a query.
    static func withObject(_ body: @Sendable (DiskServer, _ unsigned: String) async throws -> Void) async throws {
        try await DiskServer.run(apps: Self.apps) { server in
            let upload = try await server.upload(
                "/channels/messaging/general/file",
                parts: [.file(Data("ecdsa payload".utf8), name: "e.txt", type: "text/plain")]
            )
            let signed = try #require(upload.json["file"] as? String, "\(upload.text)")
            try await body(server, String(signed.prefix { $0 != "?" }))
        }
    }

    /// The link with the middle character of its `Signature` changed.
    static func tamperedSignature(_ link: String) throws -> String {
        let signature = try #require(Links.parameter("Signature", of: link))
        let middle = signature.index(signature.startIndex, offsetBy: signature.count / 2)
        let changed = signature.replacingCharacters(in: middle...middle, with: signature[middle] == "B" ? "C" : "B")
        return link.replacingOccurrences(of: "Signature=" + signature, with: "Signature=" + changed)
    }

    /// A GET with `cookie` as its `Cookie` header, which URLSession must not replace from a cookie store.
    static func get(_ url: String, cookie: String) async throws -> Reply {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.setValue(cookie, forHTTPHeaderField: "Cookie")
        request.httpShouldHandleCookies = false
        let (data, response) = try await HTTP.session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            fields[String(describing: name).lowercased()] = String(describing: value)
        }
        return Reply(status: http.statusCode, headers: fields, body: data)
    }

    static func expectDenied(_ url: String, _ message: String, _ comment: Comment) async throws {
        let reply = try await HTTP.get(url)
        #expect(reply.status == 403, comment)
        #expect(reply.header("Content-Type") == "application/xml", comment)
        #expect(reply.xmlError?.code == "AccessDenied", comment)
        #expect(reply.xmlError?.message == message, "\(comment): \(reply.text)")
        #expect(!reply.text.contains("Signature="), "an error never echoes the credential")
        if let signature = Links.parameter("Signature", of: url), signature.count > 8 {
            #expect(!reply.text.contains(signature), "an error never echoes the signature")
        }
    }

    @Test(
        "canned and custom links signed with an accepted ECDSA key read, over SHA-1 and SHA-256",
        arguments: SignatureHash.allCases
    )
    func links(hash: SignatureHash) async throws {
        try await Self.withObject { server, unsigned in
            let signer = Self.signer("KECACCEPTED001", Self.accepted)
            let far = try await server.clockNow() + 3600
            let folder = String(unsigned[..<unsigned.lastIndex(of: "/")!])
            let canned = try signer.cannedURL(unsigned, expires: far, hash: hash)
            let custom = try signer.customURL(
                unsigned,
                policy: CloudFrontPolicy(resource: folder + "/*", dateLessThan: far),
                hash: hash
            )
            for link in [canned, custom] {
                #expect(link.contains("Hash-Algorithm=SHA256") == (hash == .sha256))
                let reply = try await HTTP.get(link)
                #expect(reply.status == 200, "\(reply.text)")
                #expect(reply.text == "ecdsa payload")
                #expect(try await server.journal().last?["credential"] as? String == "cloudfront")
            }
            // The signature covers the hash named: the other one's parameter makes it fail.
            let otherHash =
                hash == .sha256
                ? canned.replacingOccurrences(of: "&Hash-Algorithm=SHA256", with: "")
                : canned + "&Hash-Algorithm=SHA256"
            try await Self.expectDenied(otherHash, "Signature does not match", "other hash")
        }
    }

    @Test("a tampered ECDSA signature, policy or expiry is 403 AccessDenied, and so is a retired ECDSA key")
    func tampered() async throws {
        try await Self.withObject { server, unsigned in
            let signer = Self.signer("KECACCEPTED001", Self.accepted)
            let far = try await server.clockNow() + 3600
            let folder = String(unsigned[..<unsigned.lastIndex(of: "/")!])
            let canned = try signer.cannedURL(unsigned, expires: far)
            let custom = try signer.customURL(
                unsigned,
                policy: CloudFrontPolicy(resource: folder + "/*", dateLessThan: far)
            )
            try await Self.expectDenied(
                try Self.tamperedSignature(canned),
                "Signature does not match",
                "canned signature"
            )
            try await Self.expectDenied(
                try Self.tamperedSignature(custom),
                "Signature does not match",
                "custom signature"
            )
            try await Self.expectDenied(
                canned.replacingOccurrences(of: "Expires=\(far)", with: "Expires=\(far + 1)"),
                "Signature does not match",
                "canned expiry"
            )
            try await Self.expectDenied(
                try Links.withPolicyExpiry(custom, far + 1),
                "Signature does not match",
                "policy expiry"
            )
            let widened = CloudFrontPolicy(resource: "*", dateLessThan: far).json
            let encoded = try #require(Links.parameter("Policy", of: custom))
            try await Self.expectDenied(
                custom.replacingOccurrences(of: encoded, with: Base64.encode(Array(widened.utf8), .cloudFront)),
                "Signature does not match",
                "policy resource"
            )
            // A signature made by another ECDSA key of the same app does not pass for this one.
            let otherKey = try Self.signer("KECACCEPTED001", Self.retired).cannedURL(unsigned, expires: far)
            try await Self.expectDenied(otherKey, "Signature does not match", "another key")
            let retired = try Self.signer("KECRETIRED0001", Self.retired).cannedURL(unsigned, expires: far)
            try await Self.expectDenied(retired, "Key-Pair-Id is retired", "retired key")
            // Past its expiry by the server's clock, a good link is refused.
            try await server.setClock(far)
            try await Self.expectDenied(canned, "Request has expired", "expired")
            // Nothing was stored or lost by the refusals: the object reads as before.
            try await server.setClock(far - 60)
            #expect(try await HTTP.get(canned).text == "ecdsa payload")
            #expect(try server.storedCount() == 1)
        }
    }

    @Test(
        "signed cookies with an ECDSA key open what they cover; tampered ones are 403",
        arguments: SignatureHash.allCases
    )
    func cookies(hash: SignatureHash) async throws {
        try await Self.withObject { server, unsigned in
            let signer = Self.signer("KECACCEPTED001", Self.accepted)
            let far = try await server.clockNow() + 3600
            let folder = String(unsigned[..<unsigned.lastIndex(of: "/")!])
            let custom = try signer.cookies(
                policy: CloudFrontPolicy(resource: folder + "/*", dateLessThan: far),
                hash: hash
            )
            let canned = try signer.cookies(policy: nil, resource: unsigned, expires: far, hash: hash)
            for cookies in [custom, canned] {
                #expect(cookies.contains { $0.name == "CloudFront-Hash-Algorithm" } == (hash == .sha256))
                let header = cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
                let reply = try await Self.get(unsigned, cookie: header)
                #expect(reply.status == 200 && reply.text == "ecdsa payload", "\(reply.text)")
                #expect(try await server.journal().last?["credential"] as? String == "cloudfront-cookie")
                let tampered = cookies.map { cookie in
                    guard cookie.name == "CloudFront-Signature" else { return "\(cookie.name)=\(cookie.value)" }
                    let middle = cookie.value.index(cookie.value.startIndex, offsetBy: cookie.value.count / 2)
                    let swap = cookie.value[middle] == "B" ? "C" : "B"
                    return "\(cookie.name)=" + cookie.value.replacingCharacters(in: middle...middle, with: swap)
                }
                let refused = try await Self.get(unsigned, cookie: tampered.joined(separator: "; "))
                #expect(refused.status == 403 && refused.xmlError?.code == "AccessDenied")
                #expect(refused.xmlError?.message == "Signature does not match", "\(refused.text)")
            }
        }
    }

    @Test("an app whose active key is ECDSA issues ECDSA-signed links that read, and lists the key's algorithm")
    func issuedLinks() async throws {
        try await DiskServer.run(apps: Self.apps) { server in
            let token = JWT.sign(["user_id": "alice"], secret: Self.apps[1].apiSecret)
            let upload = try await server.upload(
                "/api/v2/uploads/image",
                token: token,
                apiKey: "ecapp-key",
                parts: [.file(Media.png, name: "e.png", type: "image/png")]
            )
            let link = try #require(upload.json["file"] as? String, "\(upload.text)")
            #expect(link.contains("Key-Pair-Id=KECACTIVE00001"))
            // The issued signature is a DER ECDSA signature by the active key.
            let encodedSignature = try #require(Links.parameter("Signature", of: link))
            let signature = try #require(Base64.decode(encodedSignature, .cloudFront))
            #expect(signature.first == 0x30 && signature.count <= ECKey.maximumSignatureLength)
            let encodedPolicy = try #require(Links.parameter("Policy", of: link))
            let policy = try #require(Base64.decode(encodedPolicy, .cloudFront))
            #expect(Self.active.isValidSignature(signature, for: policy, hash: .sha1))
            #expect(try await HTTP.get(link).status == 200)
            let resized = try await HTTP.get(link + "&w=4&h=4&resize=scale")
            #expect(resized.status == 200 && resized.image?.width == 4)
            try await Self.expectDenied(try Self.tamperedSignature(link), "Signature does not match", "issued link")

            let keys = try await HTTP.get(server.url("/v1/apps/ecapp/keys"))
            let listed = try #require(keys.json["keys"] as? [[String: Any]])
            #expect(listed.map { $0["algorithm"] as? String } == ["ECDSA-P256"])
            #expect(listed.first?["public_key"] as? String == (try Self.active.publicKeyPEM))
            let demo = try #require(
                try await HTTP.get(server.url("/v1/apps/demo/keys")).json["keys"] as? [[String: Any]]
            )
            #expect(demo.map { $0["algorithm"] as? String } == ["RSA", "ECDSA-P256", "ECDSA-P256"])
        }
    }

    @Test("an app key that is neither RSA nor ECDSA P-256 is refused at start, naming the app and key, never the PEM")
    func refusedAtStart() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mockcdn-ec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", "p384.pem"]
        process.currentDirectoryURL = folder
        try process.run()
        try await outsidePool { process.waitUntilExit() }
        try #require(process.terminationStatus == 0)
        let pem = try String(contentsOf: folder.appendingPathComponent("p384.pem"), encoding: .utf8)
        for pair in [
            AppConfiguration.KeyPair(id: "KP384000000001", status: .active, privateKeyPEM: pem),
            AppConfiguration.KeyPair(id: "KP384000000001", status: .accepted, publicKeyPEM: "not a key"),
        ] {
            var app = AppConfiguration.demo
            app.keyPairs = [pair]
            do {
                _ = try MediaApp(app)
                Issue.record("a P-384 key was taken")
            } catch let error as MockCDNError {
                #expect(error == .invalidKeyMaterial)
                #expect(error.detail.contains("app demo: key KP384000000001"), "\(error.detail)")
                #expect(error.detail.contains("RSA-2048 and ECDSA P-256"), "\(error.detail)")
                #expect(!error.detail.contains("BEGIN"), "\(error.detail)")
            }
        }
    }
}
