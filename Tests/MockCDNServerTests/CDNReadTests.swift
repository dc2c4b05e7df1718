import Foundation
import MockCDNCore
import Testing

@Suite("CDN reads")
struct CDNReadTests {
    /// 26 bytes, so ranges are easy to read.
    static let alphabet = Data("abcdefghijklmnopqrstuvwxyz".utf8)

    /// A second app whose keys rotated: one active, one accepted (old links still work), one retired.
    static let rotated: (app: AppConfiguration, accepted: RSAKey, retired: RSAKey) = {
        let accepted = try! RSAKey.generate()
        let retired = try! RSAKey.generate()
        let app = AppConfiguration(
            appID: "rotated",
            apiKey: "rotated-key",
            apiSecret: "rotated-secret-for-tests-only-32bytes",
            region: "eu",
            keyPairs: [
                .init(id: "KACTIVE0000001", status: .active),
                .init(id: "KACCEPTED00001", status: .accepted, privateKeyPEM: try! accepted.privateKeyPEM),
                .init(id: "KRETIRED00001", status: .retired, publicKeyPEM: try! retired.publicKeyPEM),
            ]
        )
        return (app, accepted, retired)
    }()

    /// Runs `body` with a server holding one uploaded text object; gives its signed and unsigned URLs.
    static func withObject(
        _ body: @Sendable (DiskServer, _ signed: String, _ unsigned: String) async throws -> Void
    ) async throws {
        try await DiskServer.run(apps: [.demo, rotated.app]) { server in
            let upload = try await server.upload(
                "/channels/messaging/general/file",
                parts: [.file(alphabet, name: "abc.txt", type: "text/plain")]
            )
            let signed = try #require(upload.json["file"] as? String)
            let unsigned = String(signed.prefix { $0 != "?" })
            try await body(server, signed, unsigned)
        }
    }

    static func demoSigner() throws -> CloudFrontSigner {
        let app = try MediaApp(.demo)
        return CloudFrontSigner(keyPair: app.activeKeyPair)
    }

    @Test("credentials: none is 401, bad ones are 403 naming the rule, in S3 XML")
    func credentials() async throws {
        try await Self.withObject { server, signed, unsigned in
            let far = Int64(Date().timeIntervalSince1970) + 3600
            var cases: [(String, String, Int, String)] = [
                ("no credential", unsigned, 401, "No credential"),
                (
                    "tampered signature", signed.replacingOccurrences(of: "Signature=", with: "Signature=AB"), 403,
                    "Signature does not match"
                ),
                ("tampered expiry", try Links.withPolicyExpiry(signed, far), 403, "Signature does not match"),
                (
                    "unknown key pair", signed.replacingOccurrences(of: "K2JCJMDEHXQW5F", with: "KNOPE000000000"), 403,
                    "Unknown Key"
                ),
                (
                    "no key pair id", signed.replacingOccurrences(of: "Key-Pair-Id=K2JCJMDEHXQW5F&", with: ""), 403,
                    "Missing Key-Pair-Id query parameter or cookie value"
                ),
                (
                    "non-numeric Expires", unsigned + "?Expires=soon&Signature=abc&Key-Pair-Id=K2JCJMDEHXQW5F", 403,
                    "numeric Expires"
                ),
                ("unknown hash algorithm", signed + "&Hash-Algorithm=MD5", 403, "Hash-Algorithm"),
            ]
            // The demo app's link used on another app's path: that app has no such key.
            let otherPath = unsigned.replacingOccurrences(of: "/demo/", with: "/rotated/")
            cases.append(
                (
                    "another app's link", try Self.demoSigner().cannedURL(otherPath, expires: far), 403,
                    "Unknown Key"
                )
            )
            // CloudFront's own codes where it has text of its own; S3's AccessDenied otherwise.
            let codes = [
                "Unknown Key": "InvalidKey", "Missing Key-Pair-Id query parameter or cookie value": "MissingKey",
            ]
            for (name, url, status, message) in cases {
                let reply = try await HTTP.get(url)
                #expect(reply.status == status, "\(name)")
                #expect(reply.header("Content-Type") == "application/xml", "\(name)")
                #expect(reply.xmlError?.code == codes[message] ?? "AccessDenied", "\(name)")
                #expect(reply.xmlError?.message.contains(message) == true, "\(name): \(reply.text)")
                #expect(!reply.text.contains("Signature="), "errors never echo the credential")
            }
        }
    }

    @Test("expiry follows the clock, to the second")
    func expiry() async throws {
        try await Self.withObject { server, signed, _ in
            let expires = try Links.expiry(of: signed)
            try await server.setClock(expires - 1)
            #expect(try await HTTP.get(signed).status == 200)
            try await server.setClock(expires)
            let expired = try await HTTP.get(signed)
            #expect(expired.status == 403)
            #expect(expired.xmlError?.message == "Request has expired")
        }
    }

    @Test("key rotation: accepted keys still verify, retired keys are refused")
    func keyRotation() async throws {
        try await DiskServer.run(apps: [.demo, Self.rotated.app]) { server in
            let far = Int64(Date().timeIntervalSince1970) + 3600
            // An object of the rotated app, stored through its API key.
            let token = JWT.sign(["user_id": "alice"], secret: Self.rotated.app.apiSecret)
            let upload = try await server.upload(
                "/api/v2/uploads/file",
                token: token,
                apiKey: "rotated-key",
                parts: [.file(Self.alphabet, name: "r.txt")]
            )
            let signed = try #require(upload.json["file"] as? String)
            #expect(signed.contains("Key-Pair-Id=KACTIVE0000001"))
            #expect(try await HTTP.get(signed).status == 200)
            let unsigned = String(signed.prefix { $0 != "?" })

            let accepted = CloudFrontSigner(
                keyPair: .init(id: "KACCEPTED00001", key: .rsa(Self.rotated.accepted), status: .accepted)
            )
            #expect(try await HTTP.get(try accepted.cannedURL(unsigned, expires: far)).status == 200)
            let retired = CloudFrontSigner(
                keyPair: .init(id: "KRETIRED00001", key: .rsa(Self.rotated.retired), status: .retired)
            )
            let refused = try await HTTP.get(try retired.cannedURL(unsigned, expires: far))
            #expect(refused.status == 403)
            #expect(refused.xmlError?.message == "Key-Pair-Id is retired")

            let keys = try await HTTP.get(server.url("/v1/apps/rotated/keys"))
            let listed = try #require(keys.json["keys"] as? [[String: Any]])
            #expect(listed.map { $0["id"] as? String } == ["KACTIVE0000001", "KACCEPTED00001", "KRETIRED00001"])
            #expect(listed.map { $0["status"] as? String } == ["active", "accepted", "retired"])
        }
    }

    @Test("custom policies: wildcard resource, SHA-256, source IP and start date")
    func customPolicies() async throws {
        try await Self.withObject { server, _, unsigned in
            let signer = try Self.demoSigner()
            let far = Int64(Date().timeIntervalSince1970) + 3600
            let folder = String(unsigned[..<unsigned.lastIndex(of: "/")!])
            let wildcard = CloudFrontPolicy(resource: folder + "/*", dateLessThan: far)
            #expect(try await HTTP.get(try signer.customURL(unsigned, policy: wildcard)).status == 200)
            #expect(try await HTTP.get(try signer.customURL(unsigned, policy: wildcard, hash: .sha256)).status == 200)
            #expect(try await HTTP.get(try signer.cannedURL(unsigned, expires: far, hash: .sha256)).status == 200)

            var cases: [(CloudFrontPolicy, Int, String?)] = []
            cases.append(
                (CloudFrontPolicy(resource: folder + "/*", dateLessThan: far, sourceIP: "127.0.0.0/8"), 200, nil)
            )
            cases.append(
                (CloudFrontPolicy(resource: folder + "/*", dateLessThan: far, sourceIP: "10.0.0.0/8"), 403, "Source IP")
            )
            cases.append(
                (
                    CloudFrontPolicy(resource: folder + "/*", dateLessThan: far, dateGreaterThan: far - 60), 403,
                    "not yet valid"
                )
            )
            cases.append((CloudFrontPolicy(resource: folder + "/other/*", dateLessThan: far), 403, "not covered"))
            cases.append((CloudFrontPolicy(resource: folder + "/*", dateLessThan: 1_000), 403, "expired"))
            for (policy, status, message) in cases {
                let reply = try await HTTP.get(try signer.customURL(unsigned, policy: policy))
                #expect(reply.status == status, "\(policy)")
                if let message { #expect(reply.xmlError?.message.contains(message) == true, "\(reply.text)") }
            }
            let garbage = unsigned + "?Policy=bm90IGpzb24_&Signature=abc&Key-Pair-Id=K2JCJMDEHXQW5F"
            #expect(try await HTTP.get(garbage).status == 403)
        }
    }

    @Test("issued links carry wildcard policies, as on Stream; a canned link only takes transform parameters")
    func transformParameters() async throws {
        try await Self.withObject { server, signed, unsigned in
            let upload = try await server.upload(parts: [.file(Media.png, name: "p.png", type: "image/png")])
            let image = try #require(upload.json["file"] as? String)
            let transformed = try await HTTP.get(image + "&w=32&h=*&resize=clip&crop=top&ro=0")
            #expect(transformed.status == 200)
            #expect(transformed.image?.width == 32)
            #expect(try await HTTP.get(signed + "&ro=0").status == 200)
            #expect(try await HTTP.get(signed + "&download=1").status == 200)
            #expect(try await HTTP.get(image + "&download=1").status == 200)
            // The image link's resource names the original size: another oh or ow is not covered.
            let otherSize = image.replacingOccurrences(of: "&oh=\(Media.pngSize.height)", with: "&oh=1")
            #expect(try await HTTP.get(otherSize).status == 403)
            // The path is not a wildcard's: a link moved to another object does not verify.
            let moved = signed.replacingOccurrences(of: "/abc.txt?", with: "/abd.txt?")
            #expect(try await HTTP.get(moved).status == 403)
            let canned = try Self.demoSigner().cannedURL(unsigned, expires: Int64(Date().timeIntervalSince1970) + 600)
            #expect(try await HTTP.get(canned + "&ro=0").status == 200)
            #expect(try await HTTP.get(canned + "&download=1").status == 403)
        }
    }

    /// RFC 9110 section 14 on a 26-byte representation: header, status, served bytes, Content-Range.
    static let ranges: [(String, Int, String, String?)] = [
        ("bytes=0-4", 206, "abcde", "bytes 0-4/26"),
        ("bytes=5-", 206, "fghijklmnopqrstuvwxyz", "bytes 5-25/26"),
        ("bytes=-3", 206, "xyz", "bytes 23-25/26"),
        ("bytes=-100", 206, "abcdefghijklmnopqrstuvwxyz", "bytes 0-25/26"),
        ("bytes=25-25", 206, "z", "bytes 25-25/26"),
        ("bytes=20-1000", 206, "uvwxyz", "bytes 20-25/26"),
        ("BYTES = 1-2", 200, "abcdefghijklmnopqrstuvwxyz", nil),
        ("bytes= 1-2 ", 206, "bc", "bytes 1-2/26"),
        ("bytes=1-2,,", 206, "bc", "bytes 1-2/26"),
        ("bytes=0-1,4-5", 200, "abcdefghijklmnopqrstuvwxyz", nil),
        ("bytes=5-2", 200, "abcdefghijklmnopqrstuvwxyz", nil),
        ("bytes=abc", 200, "abcdefghijklmnopqrstuvwxyz", nil),
        ("items=0-1", 200, "abcdefghijklmnopqrstuvwxyz", nil),
        ("bytes=26-", 416, "", "bytes */26"),
        ("bytes=-0", 416, "", "bytes */26"),
        ("bytes=99999999999999999999999-", 416, "", "bytes */26"),
    ]

    @Test("Range per RFC 9110")
    func rangeTable() async throws {
        try await Self.withObject { _, signed, _ in
            for (header, status, body, contentRange) in Self.ranges {
                let reply = try await HTTP.get(signed, headers: ["Range": header])
                #expect(reply.status == status, "\(header)")
                if status != 416 { #expect(reply.text == body, "\(header)") }
                #expect(reply.header("Content-Range") == contentRange, "\(header)")
                if status == 416 { #expect(reply.xmlError?.code == "InvalidRange") }
            }
        }
    }

    @Test("conditional requests: If-None-Match, If-Modified-Since, If-Range")
    func conditionals() async throws {
        try await Self.withObject { _, signed, _ in
            let full = try await HTTP.get(signed)
            let etag = try #require(full.header("ETag"))
            let lastModified = try #require(full.header("Last-Modified"))
            #expect(full.header("Accept-Ranges") == "bytes")
            #expect(full.header("Cache-Control") != nil)
            #expect(HTTPDate.parse(lastModified) != nil)

            #expect(try await HTTP.get(signed, headers: ["If-None-Match": etag]).status == 304)
            #expect(try await HTTP.get(signed, headers: ["If-None-Match": "W/" + etag]).status == 304)
            #expect(try await HTTP.get(signed, headers: ["If-None-Match": #""other", "# + etag]).status == 304)
            #expect(try await HTTP.get(signed, headers: ["If-None-Match": "*"]).status == 304)
            #expect(try await HTTP.get(signed, headers: ["If-None-Match": #""other""#]).status == 200)
            #expect(try await HTTP.get(signed, headers: ["If-Modified-Since": lastModified]).status == 304)
            #expect(
                try await HTTP.get(signed, headers: ["If-Modified-Since": "Sat, 01 Jan 2000 00:00:00 GMT"]).status
                    == 200
            )
            #expect(try await HTTP.get(signed, headers: ["If-Modified-Since": "yesterday"]).status == 200)
            // If-None-Match wins over If-Modified-Since.
            let both = try await HTTP.get(
                signed,
                headers: ["If-None-Match": #""other""#, "If-Modified-Since": lastModified]
            )
            #expect(both.status == 200)

            #expect(try await HTTP.get(signed, headers: ["Range": "bytes=0-1", "If-Range": etag]).status == 206)
            #expect(
                try await HTTP.get(signed, headers: ["Range": "bytes=0-1", "If-Range": lastModified]).status == 206
            )
            let stale = try await HTTP.get(signed, headers: ["Range": "bytes=0-1", "If-Range": #""stale""#])
            #expect(stale.status == 200)
            #expect(stale.body == Self.alphabet)
            #expect(try await HTTP.get(signed, headers: ["Range": "bytes=0-1", "If-Range": "W/" + etag]).status == 200)
        }
    }

    @Test("HEAD answers the headers of GET and no body")
    func head() async throws {
        try await Self.withObject { _, signed, unsigned in
            let reply = try await HTTP.send("HEAD", URL(string: signed)!)
            #expect(reply.status == 200)
            #expect(reply.header("Content-Length") == "26")
            #expect(reply.body.isEmpty)
            let ranged = try await HTTP.send("HEAD", URL(string: signed)!, headers: ["Range": "bytes=0-9"])
            #expect(ranged.status == 206)
            #expect(ranged.header("Content-Length") == "10")
            #expect(try await HTTP.send("HEAD", URL(string: unsigned)!).status == 401)
        }
    }

    @Test("CORS: preflight is answered, and reads carry the allow-origin header")
    func cors() async throws {
        try await Self.withObject { server, signed, unsigned in
            let preflight = try await HTTP.send(
                "OPTIONS",
                URL(string: unsigned)!,
                headers: [
                    "Origin": "https://app.example", "Access-Control-Request-Method": "GET",
                    "Access-Control-Request-Headers": "range, fat",
                ]
            )
            #expect((200..<300).contains(preflight.status))
            #expect(preflight.header("Access-Control-Allow-Origin") == "*")
            #expect(preflight.header("Access-Control-Allow-Methods")?.contains("GET") == true)
            #expect(preflight.header("Access-Control-Allow-Headers")?.lowercased().contains("range") == true)
            let read = try await HTTP.get(signed, headers: ["Origin": "https://app.example"])
            #expect(read.header("Access-Control-Allow-Origin") == "*")
            #expect(read.header("Access-Control-Expose-Headers")?.contains("Content-Range") == true)
        }
    }

    @Test("paths that climb out, unknown apps and unknown keys")
    func badPaths() async throws {
        try await Self.withObject { server, signed, _ in
            let query = String(signed[signed.firstIndex(of: "?")!...])
            for path in ["/demo/%2e%2e/meta/x", "/demo/a/%2E%2E/b", "/demo/a%00b", "/demo/a%5Cb", "/demo/%ff%fe"] {
                let reply = try await HTTP.get(server.url(path + query))
                #expect(reply.status == 400, "\(path)")
                #expect(reply.xmlError?.code == "InvalidURI", "\(path)")
            }
            let noApp = try await HTTP.get(server.url("/nosuchapp/attachments/x.txt" + query))
            #expect(noApp.status == 404)
            #expect(noApp.xmlError?.code == "NoSuchBucket")
            // A valid signature for a key that does not exist: 404 only after authorisation.
            let signer = try Self.demoSigner()
            let missing = try signer.cannedURL(
                server.url("/demo/attachments/none/missing.txt").absoluteString,
                expires: Int64(Date().timeIntervalSince1970) + 60
            )
            let reply = try await HTTP.get(missing)
            #expect(reply.status == 404)
            #expect(reply.xmlError?.code == "NoSuchKey")
            #expect(try await HTTP.get(server.url("/demo/attachments/none/missing.txt")).status == 401)
        }
    }

    @Test("the demo app's key endpoint serves the published development key")
    func demoKeys() async throws {
        try await DiskServer.run { server in
            let reply = try await HTTP.get(server.url("/v1/apps/demo/keys"))
            #expect(reply.status == 200)
            let key = try #require((reply.json["keys"] as? [[String: Any]])?.first)
            #expect(key["id"] as? String == "K2JCJMDEHXQW5F")
            let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Fixtures/keys/demo-K2JCJMDEHXQW5F.public.pem")
            #expect(key["public_key"] as? String == (try String(contentsOf: fixture, encoding: .utf8)))
            let unknown = try await HTTP.get(server.url("/v1/apps/nope/keys"))
            #expect(unknown.status == 404)
            #expect((unknown.json["error"] as? [String: Any])?["code"] as? String == "ERR_APP_NOT_FOUND")
        }
    }

    @Test("clock routes: read, set, advance; bad bodies are 400")
    func clock() async throws {
        try await DiskServer.run { server in
            // Bounds measured around each read, never a tolerance: the clock runs on while a loaded machine
            // answers, by however long that takes.
            let realBefore = Int64(Date().timeIntervalSince1970)
            let now = try await server.clockNow()
            #expect((realBefore...Int64(Date().timeIntervalSince1970)).contains(now))
            let setStarted = ContinuousClock.now
            try await server.setClock(2_000_000_000)
            let set = try await server.clockNow()
            let sinceSet = (ContinuousClock.now - setStarted).components.seconds + 1
            #expect((2_000_000_000...2_000_000_000 + sinceSet).contains(set))
            let advanceStarted = ContinuousClock.now
            let before = try await server.clockNow()
            try await server.advanceClock(86_400)
            let advanced = try await server.clockNow()
            let sinceBefore = (ContinuousClock.now - advanceStarted).components.seconds + 1
            #expect((before + 86_400...before + 86_400 + sinceBefore).contains(advanced))
            for (method, path, body) in [
                ("PUT", "/_mockcdn/clock", "{}"), ("PUT", "/_mockcdn/clock", #"{"now":-5}"#),
                ("PUT", "/_mockcdn/clock", #"{"now":253402300800}"#),
                ("PUT", "/_mockcdn/clock", #"{"now":9223372036854770000}"#),
                ("POST", "/_mockcdn/clock/advance", "nope"),
                ("POST", "/_mockcdn/clock/advance", #"{"seconds":9223372036854770000}"#),
                ("POST", "/_mockcdn/clock/advance", #"{"seconds":-9000000000}"#),
            ] {
                #expect(try await HTTP.send(method, server.url(path), body: Data(body.utf8)).status == 400, "\(body)")
            }
        }
    }
}
