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
            #expect(String(decoding: body, as: UTF8.self) == #"{"status":"ok"}"#)
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

    @Test("the ready banner names the URL and the demo app's keys")
    func banner() {
        let banner = ServerConfiguration().readyBanner(baseURL: "http://127.0.0.1:8080")
        #expect(
            banner == """
                mockcdn ready on http://127.0.0.1:8080
                app_id=demo api_key=demo-key api_secret=demo-secret-for-local-testing-only region=us
                """
        )
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
