import Foundation
import MockCDNPoolWatchdog
import MockCDNServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs the real `mockcdn` binary, as a script or CI job would.
@Suite("mockcdn serve")
struct ServeCommandTests {
    /// The binary SwiftPM built next to the test bundle.
    static var binary: URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = testBinary.deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("mockcdn")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return testBinary.deletingLastPathComponent().appendingPathComponent("mockcdn")
    }

    /// Runs the binary until it exits (for arguments it must refuse); returns its status and stderr. It waits
    /// outside the cooperative pool.
    static func runToExit(
        _ arguments: [String],
        environment: [String: String] = [:],
        in directory: URL? = nil
    ) async throws -> (status: Int32, stderr: String, stdout: String) {
        try await outsidePool { try Self.runToExitBlocking(arguments, environment: environment, in: directory) }
    }

    private static func runToExitBlocking(
        _ arguments: [String],
        environment: [String: String],
        in directory: URL?
    ) throws -> (status: Int32, stderr: String, stdout: String) {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        // Files, not pipes: a full pipe nobody reads would block the process.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mockcdn-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("stdout")
        let err = folder.appendingPathComponent("stderr")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        // A binary that should have refused its arguments but serves instead is stopped, and the test fails
        // on its status, rather than waiting forever.
        let deadline = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: deadline)
        process.waitUntilExit()
        deadline.cancel()
        return (
            process.terminationStatus,
            try String(contentsOf: err, encoding: .utf8),
            try String(contentsOf: out, encoding: .utf8)
        )
    }

    /// Reads stdout line by line until `count` lines arrived or the pipe closed; it waits outside the
    /// cooperative pool.
    static func readLines(_ handle: FileHandle, count: Int) async throws -> [String] {
        try await outsidePool { Self.readLinesBlocking(handle, count: count) }
    }

    private static func readLinesBlocking(_ handle: FileHandle, count: Int) -> [String] {
        var buffer = Data()
        while buffer.split(separator: UInt8(ascii: "\n")).count < count || buffer.last != UInt8(ascii: "\n") {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer += chunk
        }
        return String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("prints the ready line and the keys, serves health, and exits 0 on SIGTERM", arguments: [SIGTERM, SIGINT])
    func readyLineAndGracefulShutdown(signal: Int32) async throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["serve", "--port", "0", "--log-level", "warning"]
        let stdout = Pipe()
        process.standardOutput = stdout
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let lines = try await Self.readLines(stdout.fileHandleForReading, count: 2)
        try #require(lines.count >= 2, "stdout was \(lines)")
        let prefix = "mockcdn ready on http://127.0.0.1:"
        try #require(lines[0].hasPrefix(prefix), "first line was \(lines[0])")
        let port = try #require(Int(lines[0].dropFirst(prefix.count)))
        #expect(port > 0 && port != 8080)
        #expect(lines[1] == "app_id=demo api_key=demo-key api_secret=demo-secret-for-local-testing-only region=us")

        let (_, response) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(port)/_mockcdn/health")!
        )
        #expect((response as? HTTPURLResponse)?.statusCode == 200)

        kill(process.processIdentifier, signal)
        // A poll, not a margin: it ends when the process exits, and gives up after 60 s.
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!process.isRunning)
        #expect(process.terminationStatus == 0)
    }

    @Test("at trace level, no token, signature or secret reaches the log")
    func logsHoldNoSecrets() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("mockcdn-log-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["serve", "--port", "0", "--log-level", "trace"]
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let lines = try await Self.readLines(stdout.fileHandleForReading, count: 2)
        let base = try #require(lines.first?.components(separatedBy: " on ").last)

        let secrets = [
            "FATSECRET0", "SIGSECRET1", "JWTSECRET2",
            "b877124fafdc193f846a9339c70745fc88d37d17e979c9f24401dc8cc9c675db",
        ]
        let requests: [(String, String, [String: String])] = [
            ("GET", "/demo/a/b.txt?fat=FATSECRET0%2B%2F%3D", [:]),
            ("GET", "/demo/a/b.txt", ["fat": "FATSECRET0+/="]),
            ("GET", "/demo/a/b.txt?Expires=1&Signature=SIGSECRET1&Key-Pair-Id=K", [:]),
            (
                "GET",
                "/demo/a/b.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=demo-key%2F20261121%2Fus%2Fs3%2Faws4_request"
                    + "&X-Amz-Date=20261121T134725Z&X-Amz-Expires=60&X-Amz-SignedHeaders=host&X-Amz-Signature="
                    + secrets[3],
                [:]
            ),
            ("POST", "/v1/apps/demo/fat", ["Authorization": "Bearer JWTSECRET2"]),
            ("POST", "/v1/apps/demo/presign", ["fat": "FATSECRET0+/="]),
            ("POST", "/api/v2/uploads/file?api_key=demo-key", ["Authorization": "JWTSECRET2"]),
        ]
        for (method, path, headers) in requests {
            var request = URLRequest(url: try #require(URL(string: base + path)))
            request.httpMethod = method
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect([400, 401, 403].contains((response as? HTTPURLResponse)?.statusCode ?? 0), "\(method) \(path)")
        }
        kill(process.processIdentifier, SIGTERM)
        try await outsidePool { process.waitUntilExit() }
        let text = try String(contentsOf: log, encoding: .utf8)
        // The log is really there and at trace level, so its silence about secrets means something.
        #expect(text.contains("trace"))
        for secret in secrets + ["demo-secret-for-local-testing-only"] {
            #expect(!text.contains(secret), "the log holds \(secret)")
        }
    }

    @Test("--help lists exactly the settings of the table, each with its help, variable and default")
    func helpFollowsTheTable() async throws {
        let (status, _, help) = try await Self.runToExit(["serve", "--help"])
        #expect(status == 0)
        // ArgumentParser wraps lines; compare with whitespace collapsed.
        let flat = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for setting in ServeSetting.all {
            let bounds = setting.boundsText.map { "\($0); " } ?? ""
            let expected = "\(setting.help) (\(setting.environmentVariable); \(bounds)default: \(setting.defaultText))"
            #expect(flat.contains(expected), "\(setting)")
        }
        let options = help.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard line.hasPrefix("  --"), let flag = words.first else { return nil }
            return String(flag)
        }
        #expect(
            Set(options) == Set(ServeSetting.all.map(\.flag) + ["--version"]),
            "one option per setting, --version, -h/--help"
        )
    }

    @Test("start-up errors are one line naming the setting: a busy port, no fixtures folder, no data directory")
    func startupErrors() async throws {
        let busy = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(busy) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(busy, $0, length) == 0 && listen(busy, 1) == 0 && getsockname(busy, $0, &length) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        // A regular file where the data directory's parent should be: no user, root included, can create it.
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mockcdn-blocker-\(UUID().uuidString)"
        )
        FileManager.default.createFile(atPath: blocker.path, contents: Data("not a folder".utf8))
        defer { try? FileManager.default.removeItem(at: blocker) }
        let dataDirectory = blocker.appendingPathComponent("data").path
        for (arguments, message) in [
            (
                ["--port", String(port)],
                "--port \(port): 127.0.0.1:\(port) is already in use; pass --port 0 to let the server pick a free port"
            ),
            (
                ["--port", "0", "--fixtures", "/nonexistent/media"],
                "the fixtures folder /nonexistent/media does not exist"
            ),
            (
                ["--port", "0", "--data-dir", dataDirectory],
                "cannot open the data directory \(dataDirectory) (--data-dir): a folder above it is missing or is not a folder"
            ),
        ] {
            let (status, stderr, _) = try await Self.runToExit(["serve"] + arguments)
            #expect(status != 0)
            #expect(stderr.contains(message), "\(stderr)")
            #expect(
                stderr.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").count == 1,
                "\(stderr)"
            )
        }
    }

    @Test("--version prints the version")
    func version() async throws {
        let (status, _, stdout) = try await Self.runToExit(["--version"])
        #expect(status == 0)
        #expect(stdout == mockCDNVersion + "\n")
    }

    @Test("a port out of range exits non-zero with a reason")
    func badPort() async throws {
        let (status, message, _) = try await Self.runToExit(["serve", "--port", "70000"])
        #expect(status != 0)
        #expect(message.contains("port must be 0...65535"), "\(message)")
    }

    @Test(
        "a public URL with a path, query or another scheme exits non-zero with a reason",
        arguments: ["http://127.0.0.1:8080/cdn", "ftp://example.com", "http://example.com/?a=b", "example.com"]
    )
    func badPublicURL(_ url: String) async throws {
        let (status, message, _) = try await Self.runToExit(["serve", "--port", "0", "--public-url", url])
        #expect(status != 0)
        #expect(message.contains("--public-url must be http(s)://HOST[:PORT]"), "\(message)")
    }
}

@Suite("mockcdn serve --config")
struct ServeConfigTests {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mockcdn-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: url.appendingPathComponent("keys"),
            withIntermediateDirectories: true
        )
        return url
    }

    @Test("two apps from YAML: a configured key pair by path, and one generated at start")
    func twoApps() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let generate = Process()
        generate.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        generate.arguments = ["openssl", "genrsa", "-out", folder.appendingPathComponent("keys/acme.pem").path, "2048"]
        generate.standardError = Pipe()
        try generate.run()
        try await outsidePool { generate.waitUntilExit() }
        try #require(generate.terminationStatus == 0)
        let yaml = """
            apps:
              - app_id: acme
                api_key: acme-key
                api_secret: acme-secret-at-least-32-bytes-long!!
                region: eu
                link_ttl: 3600
                keys:
                  - id: KACME000000001
                    status: active
                    private_key: keys/acme.pem
              - app_id: beta
                api_key: beta-key
                api_secret: beta-secret-at-least-32-bytes-long!!
            """
        let config = folder.appendingPathComponent("example.yaml")
        try yaml.write(to: config, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = ServeCommandTests.binary
        process.arguments = ["serve", "--port", "0", "--log-level", "warning", "--config", config.path]
        let stdout = Pipe()
        process.standardOutput = stdout
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let lines = try await ServeCommandTests.readLines(stdout.fileHandleForReading, count: 2)
        let base = try #require(lines.first?.replacingOccurrences(of: "mockcdn ready on ", with: ""))
        for (app, key) in [("demo", "K2JCJMDEHXQW5F"), ("acme", "KACME000000001")] {
            let (data, _) = try await URLSession.shared.data(from: URL(string: "\(base)/v1/apps/\(app)/keys")!)
            #expect(String(decoding: data, as: UTF8.self).contains(key), "\(app)")
        }
        let (beta, response) = try await URLSession.shared.data(from: URL(string: "\(base)/v1/apps/beta/keys")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: beta, as: UTF8.self).contains("BEGIN PUBLIC KEY"))
    }

    @Test("the shipped example config serves its two apps with their settings")
    func shippedExample() async throws {
        let server = try await ServerProcess.start(["--config", "Fixtures/config/example.yaml"])
        defer { server.stop() }
        let (settings, acme) = try await server.send("/v1/apps/acme/settings")
        #expect(settings == 200)
        #expect(String(decoding: acme, as: UTF8.self).contains(#""PRESIGNED_URL_TTL":120"#))
        #expect(try await server.send("/v1/apps/beta/keys").0 == 200)
        #expect(try await server.send("/v1/apps/demo/keys").0 == 200)
    }

    @Test(
        "a malformed config fails at start with the file, the place and the reason",
        arguments: [
            ("apps:\n  - app_id: acme\n    api_key: [unclosed\n", "line"),
            ("apps:\n  - app_id: acme\n    api_key: k\n    api_secret: [SUPERSECRET-value\n", "line 5"),
            ("apps:\n  - app_id: acme\n    api_secret: s\n", "apps[0].api_key: required key is missing"),
            ("apps:\n  - app_id: channels\n    api_key: k\n    api_secret: s\n", "app id \"channels\""),
            ("server:\n  prot: 9000\n", "line 2, column 3: server.prot is not a setting"),
            (
                "apps:\n  - app_id: acme\n    api_key: k\n    api_secret: s\n    regoin: eu\n",
                "line 5, column 5: apps[0].regoin is not a setting"
            ),
            (
                "apps:\n  - app_id: acme\n    api_key: k\n    api_secret: s\n    keys:\n      - id: K1\n        staus: active\n",
                "line 7, column 9: apps[0].keys[0].staus is not a setting"
            ),
            ("aps: []\n", "line 1, column 1: aps is not a setting"),
            (
                "apps:\n  - app_id: acme\n    api_key: k\n    api_secret: s\n    keys:\n      - id: K1\n        status: active\n        private_key: missing.pem\n",
                "cannot read"
            ),
            // The apps given as a mapping, as a first try often does.
            (
                "apps:\n  acme:\n    api_key: k\n",
                "bad.yaml: line 2, column 3: apps must be a list (each item starting with `- `), not a mapping"
            ),
            (
                "server:\n  - port: 9000\n",
                "bad.yaml: line 2, column 3: server must be a mapping of `name: value` lines, not a list"
            ),
            // Two apps of one id or key: an error naming both places, never the second quietly replacing the first.
            (
                "apps:\n  - app_id: acme\n    api_key: k1\n    api_secret: s\n  - app_id: acme\n    api_key: k2\n    api_secret: s\n",
                #"bad.yaml: line 5, column 13: app_id "acme" is given to two apps (first at line 2, column 13); each app needs its own"#
            ),
            (
                "apps:\n  - app_id: acme\n    api_key: k\n    api_secret: s\n  - app_id: beta\n    api_key: k\n    api_secret: s\n",
                #"bad.yaml: line 6, column 14: api_key "k" is given to two apps (first at line 3, column 14); each app needs its own"#
            ),
        ]
    )
    func malformed(yaml: String, reason: String) async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("bad.yaml")
        try yaml.write(to: config, atomically: true, encoding: .utf8)
        let (status, message, _) = try await ServeCommandTests.runToExit([
            "serve", "--port", "0", "--config", config.path,
        ])
        #expect(status != 0)
        #expect(message.contains(config.path) || reason.hasPrefix("app id"), "\(message)")
        #expect(message.contains(reason), "\(message)")
        #expect(!message.contains("SUPERSECRET"), "a YAML error echoed the secret: \(message)")
        // The message alone: the command's usage says nothing about a file.
        #expect(!message.contains("Usage:"), "\(message)")
    }
}
