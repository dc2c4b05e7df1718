import Foundation
import Logging
import MockCDNCore
import MockCDNServer
import MockCDNTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Server")
struct HealthTests {
    static func get(_ url: URL) async throws -> (Int, Data, HTTPURLResponse) {
        let (data, response) = try await URLSession.shared.data(from: url)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, data, http)
    }

    @Test("health answers 200 over real HTTP on a port picked at start")
    func health() async throws {
        try await MockCDNTestServer.withRunning { server in
            #expect(server.baseURL.port != 8080 && server.baseURL.port != 0)
            let (status, body, response) = try await Self.get(server.url("/_mockcdn/health"))
            #expect(status == 200)
            let health = try #require(try JSONSerialization.jsonObject(with: body) as? [String: String])
            #expect(health["status"] == "ok" && health["store"] == "memory")
            #expect(health["instance"]?.count == 12 && health["reason"] == nil)
            #expect(response.value(forHTTPHeaderField: "Server") == "MockCDN")
        }
    }

    @Test("an unknown route is 404")
    func unknownRoute() async throws {
        try await MockCDNTestServer.withRunning { server in
            let (status, _, _) = try await Self.get(server.url("/_mockcdn/nope"))
            #expect(status == 404)
        }
    }

    @Test("two servers run side by side, and a disk-backed one creates its folder")
    func parallelAndDisk() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mockcdn-server-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        try await MockCDNTestServer.withRunning(ServerConfiguration(dataDirectory: folder.path, logLevel: .warning)) {
            disk in
            try await MockCDNTestServer.withRunning { memory in
                #expect(disk.baseURL != memory.baseURL)
                let (diskStatus, _, _) = try await Self.get(disk.url("/_mockcdn/health"))
                let (memoryStatus, _, _) = try await Self.get(memory.url("/_mockcdn/health"))
                #expect(diskStatus == 200)
                #expect(memoryStatus == 200)
            }
        }
        for sub in ["blobs", "meta", "tmp"] {
            var isDirectory: ObjCBool = false
            #expect(
                FileManager.default.fileExists(
                    atPath: folder.appendingPathComponent(sub).path,
                    isDirectory: &isDirectory
                )
            )
            #expect(isDirectory.boolValue)
        }
    }

    @Test("a data directory that cannot be created fails at start")
    func badDataDirectory() async throws {
        await #expect(throws: (any Error).self) {
            try await MockCDNTestServer.withRunning(ServerConfiguration(dataDirectory: "/proc/mockcdn-cannot-be-here"))
            { _ in }
        }
    }

    @Test("the ready banner names the URL, the demo app's keys, the apps and the fixtures preloaded")
    func banner() {
        let banner = ServerConfiguration().readyBanner(baseURL: "http://127.0.0.1:8080", fixtures: 15)
        #expect(
            banner == """
                mockcdn ready on http://127.0.0.1:8080
                app_id=demo api_key=demo-key api_secret=demo-secret-for-local-testing-only region=us
                apps=demo fixtures=15 at demo/fixtures/
                """
        )
        #expect(ServerConfiguration().readyBanner(baseURL: "http://h:1").hasSuffix("\napps=demo"))
        var custom = ServerConfiguration()
        custom.apps[0].apiSecret = "a-real-secret-from-a-config-file"
        #expect(!custom.readyBanner(baseURL: "http://h:1").contains("a-real-secret"))
    }
}

@Suite("Configuration")
struct ConfigurationTests {
    @Test(
        "app ids that would shadow a route, or are not URL-safe, fail at start",
        arguments: ["app", "channels", "_mockcdn", "v1", "a/b", "", "ü"]
    )
    func reservedAppIDs(id: String) async throws {
        var app = AppConfiguration.demo
        app.appID = id
        let configuration = ServerConfiguration(apps: [app])
        await #expect(throws: MockCDNError.invalidConfiguration) {
            try await MockCDNTestServer.withRunning(configuration) { _ in }
        }
    }

    @Test("duplicate app ids or API keys fail at start")
    func duplicates() async throws {
        await #expect(throws: MockCDNError.invalidConfiguration) {
            try await MockCDNTestServer.withRunning(ServerConfiguration(apps: [.demo, .demo])) { _ in }
        }
    }
}

@Suite("Serve settings: flags over environment over the config file over defaults")
struct ServeSettingsTests {
    static func configFile(_ yaml: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mockcdn-settings-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("mockcdn.yaml")
        try Data(yaml.utf8).write(to: file)
        return file.path
    }

    @Test("each layer wins over the ones below it, and paths in the file are relative to it")
    func precedence() throws {
        let file = try Self.configFile(
            """
            server:
              host: 0.0.0.0
              port: 9000
              data_dir: data
              log_level: debug
              journal_size: 10
              fixtures: media
              variant_cache_mb: 8
              admin_token: token-from-the-file-0123
            """
        )
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fromFile = try ServerConfiguration.resolve(flags: ServeSettings(flags: [.config: file]), environment: [:])
        #expect(fromFile.host == "0.0.0.0" && fromFile.port == 9000 && fromFile.logLevel == .debug)
        #expect(fromFile.dataDirectory == folder + "/data" && fromFile.fixturesDirectory == folder + "/media")
        #expect(fromFile.journalCapacity == 10 && fromFile.variantCacheBytes == 8 * 1024 * 1024)
        #expect(fromFile.adminToken == "token-from-the-file-0123")

        let environment = [
            "MOCKCDN_CONFIG": file, "MOCKCDN_PORT": "9100", "MOCKCDN_JOURNAL_SIZE": "20", "MOCKCDN_HOST": "",
            "MOCKCDN_CREDENTIAL_CACHE_SIZE": "64",
        ]
        let fromEnvironment = try ServerConfiguration.resolve(flags: ServeSettings(), environment: environment)
        #expect(fromEnvironment.port == 9100 && fromEnvironment.journalCapacity == 20)
        #expect(fromEnvironment.credentialCacheCapacity == 64)
        #expect(fromEnvironment.host == "0.0.0.0", "an empty variable counts as unset")

        let fromFlags = try ServerConfiguration.resolve(
            flags: ServeSettings(flags: [.port: "9200", .fixtures: "none"]),
            environment: environment
        )
        #expect(fromFlags.port == 9200 && fromFlags.journalCapacity == 20 && fromFlags.fixturesDirectory == nil)

        let noFixturesFile = try Self.configFile("server:\n  fixtures: none\n")
        defer {
            try? FileManager.default.removeItem(
                atPath: URL(fileURLWithPath: noFixturesFile).deletingLastPathComponent().path
            )
        }
        let noFixtures = try ServerConfiguration.resolve(
            flags: ServeSettings(flags: [.config: noFixturesFile]),
            environment: [:]
        )
        #expect(noFixtures.fixturesDirectory == nil)

        let defaults = try ServerConfiguration.resolve(flags: ServeSettings(), environment: [:])
        #expect(defaults.host == "127.0.0.1" && defaults.port == 8080 && defaults.dataDirectory == nil)
        #expect(defaults.journalCapacity == 1000 && defaults.adminToken == nil)
        #expect(defaults.credentialCacheCapacity == 4096)
        #expect(throws: MockCDNError.invalidConfiguration) {
            try ServerConfiguration.resolve(flags: ServeSettings(flags: [.credentialCacheSize: "3"]), environment: [:])
        }
    }

    @Test(
        "bad values from any layer fail with the reason",
        arguments: [
            ([String: String](), ServeSettings(flags: [.port: "70000"]), "--port must be 0...65535"),
            (["MOCKCDN_PORT": "eighty"], ServeSettings(), "MOCKCDN_PORT must be an integer"),
            (["MOCKCDN_LOG_LEVEL": "loud"], ServeSettings(), "MOCKCDN_LOG_LEVEL must be one of trace, debug"),
            ([:], ServeSettings(flags: [.adminToken: "short"]), "--admin-token must be at least 16 characters"),
            ([:], ServeSettings(flags: [.journalSize: "0"]), "--journal-size must be 1...1000000"),
            ([:], ServeSettings(flags: [.idleTimeout: "0"]), "--idle-timeout must be 1...3600"),
            ([:], ServeSettings(flags: [.memoryStoreMB: "0"]), "--memory-store-mb must be 1...1048576"),
            ([:], ServeSettings(flags: [.variantCacheMB: "-1"]), "--variant-cache-mb must be 0...65536"),
            ([:], ServeSettings(flags: [.maxConnections: "1e3"]), "--max-connections must be an integer"),
            (["MOCKCDN_S3_VARIANTS": "true"], ServeSettings(), "MOCKCDN_S3_VARIANTS needs an s3:// --store"),
        ]
    )
    func invalid(_ environment: [String: String], _ flags: ServeSettings, _ message: String) {
        let error = #expect(throws: MockCDNError.self) {
            try ServerConfiguration.resolve(flags: flags, environment: environment)
        }
        #expect(error?.detail.contains(message) == true, "\(String(describing: error))")
    }
}
