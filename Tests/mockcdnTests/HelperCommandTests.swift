import Foundation
import MockCDNPoolWatchdog
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `mockcdn serve` process for one test: its banner lines and base URL.
struct ServerProcess {
    let process: Process
    let lines: [String]
    let baseURL: String

    static func start(_ arguments: [String], bannerLines: Int = 2) async throws -> ServerProcess {
        let process = Process()
        process.executableURL = ServeCommandTests.binary
        process.arguments = ["serve", "--port", "0", "--log-level", "warning"] + arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        try process.run()
        let lines = try await ServeCommandTests.readLines(stdout.fileHandleForReading, count: bannerLines)
        guard let first = lines.first, first.hasPrefix("mockcdn ready on ") else {
            process.terminate()
            throw CocoaError(.fileReadUnknown)
        }
        return ServerProcess(
            process: process,
            lines: lines,
            baseURL: String(first.dropFirst("mockcdn ready on ".count))
        )
    }

    /// Sends SIGTERM without waiting for the exit (Foundation reaps the child on a thread of its own), so a
    /// test's `defer` never blocks a thread of the cooperative pool.
    func stop() {
        if self.process.isRunning { self.process.terminate() }
    }

    /// The status and body of a request to `path` on this server (or to a whole URL).
    func send(
        _ target: String,
        method: String = "GET",
        headers: [String: String] = [:],
        body: Data? = nil
    ) async throws
        -> (Int, Data)
    {
        let url = try #require(URL(string: target.hasPrefix("http") ? target : self.baseURL + target))
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}

@Suite("mockcdn token, sign and keys")
struct HelperCommandTests {
    static func run(_ arguments: [String]) async throws -> String {
        let (status, stderr, stdout) = try await ServeCommandTests.runToExit(arguments)
        try #require(status == 0, "mockcdn \(arguments.joined(separator: " ")): \(stderr)")
        return stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("--server signs at the running server's clock: a token and a link made after the clock moved still work")
    func signsAtServerClock() async throws {
        let server = try await ServerProcess.start(["--fixtures", "Fixtures/media"])
        defer { server.stop() }
        let (moved, _) = try await server.send(
            "/_mockcdn/clock",
            method: "PUT",
            headers: ["Content-Type": "application/json"],
            body: Data(#"{"now":"2035-01-01T00:00:00Z"}"#.utf8)
        )
        #expect(moved == 200)
        let media = server.baseURL + "/demo/fixtures/sample.pdf"
        let fat = try await Self.run(["token", "fat", "--user-id", "alice", "--ttl", "60", "--server", server.baseURL])
        #expect(try await server.send(media, headers: ["fat": fat]).0 == 200)
        let link = try await Self.run(["sign", "cloudfront", media, "--ttl", "60", "--server", server.baseURL])
        #expect(try await server.send(link).0 == 200)
        // Signed on the system clock, both are long expired in 2035.
        let stale = try await Self.run(["token", "fat", "--user-id", "alice", "--ttl", "60"])
        #expect(try await server.send(media, headers: ["fat": stale]).0 == 403)
        let (status, stderr, _) = try await ServeCommandTests.runToExit(["token", "server", "--server", "ftp://x"])
        #expect(status != 0 && stderr.contains("--server must be http://HOST:PORT"), "\(stderr)")
    }

    @Test("links the CLI signs for a configured app without keys verify on a server of the same configuration")
    func derivedKeys() async throws {
        let config = "Fixtures/config/example.yaml"
        let server = try await ServerProcess.start(["--config", config, "--fixtures", "Fixtures/media"])
        defer { server.stop() }
        let (keys, _) = try await server.send("/v1/apps/beta/keys")
        let link = try await Self.run([
            "sign", "cloudfront", server.baseURL + "/beta/missing.txt", "--app", "beta", "--config", config,
        ])
        let keyID = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "Key-Pair-Id" }?.value)
        #expect(String(decoding: try await server.send("/v1/apps/beta/keys").1, as: UTF8.self).contains(keyID))
        #expect(keys == 200)
        // The signature holds: the read gets past it to the store, which has no such object.
        let (status, body) = try await server.send(link)
        #expect(status == 404, "\(String(decoding: body, as: UTF8.self))")
        let (tampered, _) = try await server.send(link.replacingOccurrences(of: "/missing.txt", with: "/missing.txx"))
        #expect(tampered == 403)
        let again = try await Self.run([
            "sign", "cloudfront", server.baseURL + "/beta/missing.txt", "--app", "beta", "--config", config,
        ])
        #expect(URLComponents(string: again)?.queryItems?.first { $0.name == "Key-Pair-Id" }?.value == keyID)
    }

    @Test("tokens and links the CLI makes are accepted by a running server, and refused once altered")
    func acceptedByTheServer() async throws {
        let server = try await ServerProcess.start(["--fixtures", "Fixtures/media"])
        defer { server.stop() }
        let media = server.baseURL + "/demo/fixtures/sample.jpg"
        let expected = try Data(contentsOf: URL(fileURLWithPath: "Fixtures/media/sample.jpg"))

        let cloudfront = try await Self.run(["sign", "cloudfront", media])
        let custom = try await Self.run([
            "sign", "cloudfront", media, "--resource", server.baseURL + "/demo/fixtures/*", "--sha256",
        ])
        let presigned = try await Self.run(["sign", "presign", media, "--ttl", "60"])
        for link in [cloudfront, custom, presigned] {
            let (status, body) = try await server.send(link)
            #expect(status == 200, "\(link)")
            #expect(body == expected)
            let (altered, _) = try await server.send(link.replacingOccurrences(of: "/fixtures/", with: "/fixturez/"))
            #expect(altered == 403, "\(link)")
        }

        let fat = try await Self.run(["token", "fat", "--user-id", "alice", "--ttl", "120"])
        #expect(try await server.send(media, headers: ["fat": fat]).0 == 200)
        let expiredFAT = try await Self.run(["token", "fat", "--user-id", "alice", "--ttl", "1", "--now", "1000"])
        #expect(try await server.send(media, headers: ["fat": expiredFAT]).0 == 403)

        let user = try await Self.run(["token", "user", "--user-id", "alice"])
        let serverToken = try await Self.run(["token", "server"])
        #expect(try await server.send("/app?api_key=demo-key", headers: ["Authorization": serverToken]).0 == 200)
        #expect(try await server.send("/app?api_key=demo-key", headers: ["Authorization": user]).0 == 403)
        let expiredUser = try await Self.run(["token", "user", "--user-id", "alice", "--ttl", "5", "--now", "1000"])
        #expect(try await server.send("/app?api_key=demo-key", headers: ["Authorization": expiredUser]).0 == 401)
    }

    @Test("keys prints the demo key pair and exports PEM files")
    func keys() async throws {
        let printed = try await Self.run(["keys"])
        #expect(printed.hasPrefix("K2JCJMDEHXQW5F active RSA\n-----BEGIN PUBLIC KEY-----"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mockcdn-keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await Self.run(["keys", "--export", folder.path])
        let exported = try String(
            contentsOf: folder.appendingPathComponent("K2JCJMDEHXQW5F.private.pem"),
            encoding: .utf8
        )
        let published = try String(
            contentsOf: URL(fileURLWithPath: "Fixtures/keys/demo-K2JCJMDEHXQW5F.private.pem"),
            encoding: .utf8
        )
        #expect(exported.contains("BEGIN PRIVATE KEY") || exported.contains("BEGIN RSA PRIVATE KEY"))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("K2JCJMDEHXQW5F.public.pem").path))
        #expect(!published.isEmpty)
    }

    @Test(
        "bad input exits non-zero with a one-line reason",
        arguments: [
            (["token", "user"], "--user-id is required"),
            (["token", "fat", "--user-id", "a", "--ttl", "0"], "--ttl must be"),
            (["token", "nope"], "nope"),
            (["token", "server", "--app", "ghost"], "no app ghost"),
            (["sign", "presign", "http://127.0.0.1:8080/other/x.jpg"], "is not an http(s) URL under /demo/"),
            (["sign", "presign", "http://127.0.0.1:8080/demo/x.jpg", "--ttl", "604801"], "lifetime must be"),
            (["sign", "cloudfront", "ftp://example.com/demo/x"], "is not an absolute http(s) URL"),
            (["sign", "presign", "http://127.0.0.1:8080/demo/x.jpg", "--sha256"], "apply to cloudfront only"),
            (["keys", "--config", "/nonexistent/mockcdn.yaml"], "cannot read"),
            (["token", "fat", "--user-id", "a", "--now", "9223372036854775807"], "--now must be"),
            (
                ["sign", "cloudfront", "http://127.0.0.1:8080/demo/x.jpg", "--ttl", "9223372036854775807"],
                "--ttl must be"
            ),
            (["sign", "cloudfront", "http://127.0.0.1:8080/demo/x.jpg?w=1#frag"], "must not have a #fragment"),
        ]
    )
    func badInput(_ arguments: [String], _ reason: String) async throws {
        let (status, stderr, _) = try await ServeCommandTests.runToExit(arguments)
        #expect(status != 0)
        let firstLine = stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(firstLine.contains(reason), "\(stderr)")
    }

    @Test("fixtures names the checkout's sample folders from its root, and refuses where there are none")
    func fixtures() async throws {
        // A build folder has no share/mockcdn beside it: the checkout's Fixtures/ under the working directory.
        let root = FileManager.default.currentDirectoryPath
        #expect(try await Self.run(["fixtures"]) == root + "/Fixtures/media")
        #expect(try await Self.run(["fixtures", "keys"]) == root + "/Fixtures/keys")
        #expect(try await Self.run(["fixtures", "config"]) == root + "/Fixtures/config")
        let (unknown, unknownError, _) = try await ServeCommandTests.runToExit(["fixtures", "videos"])
        #expect(unknown == 64 && unknownError.contains("media"), "\(unknownError)")
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("fixtures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let (status, stderr, stdout) = try await ServeCommandTests.runToExit(["fixtures", "keys"], in: empty)
        #expect(status == 64 && stdout.isEmpty, "\(stdout)")
        #expect(stderr.contains("no keys samples"), "\(stderr)")
    }

    @Test("every subcommand has help with examples", arguments: ["serve", "token", "sign", "keys", "fixtures"])
    func help(_ command: String) async throws {
        let (status, _, stdout) = try await ServeCommandTests.runToExit([command, "--help"])
        #expect(status == 0)
        #expect(stdout.contains("USAGE: mockcdn \(command)"))
        if command != "serve" { #expect(stdout.contains("Examples:")) }
    }
}

@Suite("Admin protection")
struct AdminProtectionTests {
    @Test("off loopback the control routes need the printed admin token; health stays open")
    func generatedToken() async throws {
        let server = try await ServerProcess.start(["--host", "0.0.0.0"], bannerLines: 4)
        defer { server.stop() }
        #expect(server.lines.last?.hasPrefix("apps=demo fixtures=") == true, "\(server.lines)")
        let tokenLine = try #require(server.lines.first { $0.hasPrefix("admin_token=") })
        #expect(tokenLine.hasPrefix("admin_token="))
        let token = String(tokenLine.dropFirst("admin_token=".count))
        let base = server.baseURL.replacingOccurrences(of: "0.0.0.0", with: "127.0.0.1")
        #expect(try await server.send(base + "/_mockcdn/clock").0 == 401)
        #expect(try await server.send(base + "/_mockcdn/clock", headers: ["Authorization": "Bearer wrong"]).0 == 401)
        #expect(
            try await server.send(base + "/_mockcdn/requests", headers: ["Authorization": "Bearer " + token]).0 == 200
        )
        #expect(try await server.send(base + "/_mockcdn/reset", method: "POST").0 == 401)
        #expect(try await server.send(base + "/_mockcdn/health").0 == 200)
    }

    @Test("a configured token is not printed, and loopback needs none")
    func configuredToken() async throws {
        let token = "configured-admin-token-0123456789"
        let server = try await ServerProcess.start(["--host", "0.0.0.0", "--admin-token", token])
        defer { server.stop() }
        #expect(!server.lines.joined().contains(token))
        let base = server.baseURL.replacingOccurrences(of: "0.0.0.0", with: "127.0.0.1")
        #expect(try await server.send(base + "/_mockcdn/clock", headers: ["Authorization": "Bearer " + token]).0 == 200)
        #expect(try await server.send(base + "/_mockcdn/clock").0 == 401)

        let loopback = try await ServerProcess.start([])
        defer { loopback.stop() }
        #expect(try await loopback.send("/_mockcdn/clock").0 == 200)
    }

    @Test("environment variables reach serve: a bad MOCKCDN_LOG_LEVEL stops it with the reason")
    func environment() async throws {
        let (status, stderr, _) = try await ServeCommandTests.runToExit(
            ["serve", "--port", "0"],
            environment: ["MOCKCDN_LOG_LEVEL": "loud"]
        )
        #expect(status != 0)
        #expect(stderr.contains("MOCKCDN_LOG_LEVEL must be one of trace, debug"), "\(stderr)")
    }
}
