import Foundation
import Logging
import MockCDNCore
import MockCDNServer
import Testing

/// `ServeSetting.all` is the one declaration of the serve settings: every place that shows them agrees.
@Suite("Serve settings are declared once")
struct ServeSettingTableTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: Fixture.url("../" + path).standardizedFileURL, encoding: .utf8)
    }

    @Test("each setting has one name, flag, variable and config key")
    func unique() {
        let all = ServeSetting.all
        for key in [\ServeSetting.name, \.flag, \.environmentVariable] {
            #expect(Set(all.map { $0[keyPath: key] }).count == all.count)
        }
        #expect(Set(all.compactMap(\.configKey)).count == all.count - 1, "only --config has no key")
    }

    @Test("the README's table has one row per setting, with its flag, variable, key, bounds and default")
    func readme() throws {
        let rows = try Self.text("README.md").split(separator: "\n").filter { $0.hasPrefix("| `--") }
            .map { row in
                row.split(separator: "|", omittingEmptySubsequences: false).dropFirst().prefix(5).map {
                    $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "")
                }
            }
        #expect(rows.count == ServeSetting.all.count)
        for (row, setting) in zip(rows, ServeSetting.all) {
            let key = setting.configKey.map { String($0.dropFirst("server.".count)) } ?? ""
            #expect(
                row == [setting.flag, setting.environmentVariable, key, setting.boundsText ?? "", setting.defaultText]
            )
        }
    }

    @Test("openapi.yaml states each setting with its flag, variable, key, bounds and default")
    func openAPI() throws {
        // The document wraps lines; compare with its whitespace collapsed.
        let document = try Self.text("openapi.yaml").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for setting in ServeSetting.all {
            let names = [setting.flag, setting.environmentVariable] + (setting.configKey.map { [$0] } ?? [])
            let bounds = setting.boundsText.map { "\($0); " } ?? ""
            let line = names.map { "`\($0)`" }.joined(separator: " / ") + " (\(bounds)default: \(setting.defaultText))"
            #expect(document.contains("- " + line + ":"), "\(line)")
        }
    }

    /// Variables the test helpers read (clients/python, clients/js, clients/java, Tests/compat; `MOCKCDN_HOME`:
    /// an unpacked release tarball whose `bin/mockcdn` they start; `MOCKCDN_REPORT`: MockCDNTesting's coverage
    /// report file), never the server.
    static let helperVariables: Set = ["MOCKCDN_BINARY", "MOCKCDN_HOME", "MOCKCDN_URL", "MOCKCDN_REPORT"]

    @Test("no document names a MOCKCDN_ variable that is not a setting or one of the helpers'")
    func variables() throws {
        let known = Set(ServeSetting.all.map(\.environmentVariable)).union(Self.helperVariables)
        for path in ["README.md", "openapi.yaml", "docs/contract.md", "docs/architecture.md", "docker/Dockerfile"] {
            let text = try Self.text(path)
            let named = text.matches(of: /MOCKCDN_[A-Z0-9_]+/).map { String($0.output) }
            #expect(Set(named).subtracting(known).isEmpty, "\(path)")
        }
    }

    @Test("the table's defaults are the configuration's")
    func defaults() throws {
        let configuration = try ServerConfiguration.resolve(flags: ServeSettings(), environment: [:])
        let integers: [(ServeSetting, Int)] = [
            (.port, configuration.port), (.variantCacheMB, configuration.variantCacheBytes / 1024 / 1024),
            (.journalSize, configuration.journalCapacity),
            (.credentialCacheSize, configuration.credentialCacheCapacity),
            (.idleTimeout, configuration.idleTimeoutSeconds),
            (.keepAliveAfter, configuration.keepAliveAfterSeconds),
            (.memoryStoreMB, configuration.memoryStoreBytes / 1024 / 1024),
        ]
        for (setting, value) in integers { #expect(setting.defaultText == String(value), "\(setting)") }
        #expect(ServeSetting.host.defaultText == configuration.host)
        #expect(ServeSetting.logLevel.defaultText == configuration.logLevel.rawValue)
    }

    @Test("a config file's server section takes every setting by its key, and refuses any other key")
    func configFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mockcdn-table-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("mockcdn.yaml")
        try Data("server:\n  journal_size: 7\n  log_level: DEBUG\n".utf8).write(to: file)
        let configuration = try ServerConfiguration.resolve(
            flags: ServeSettings(flags: [.config: file.path]),
            environment: [:]
        )
        #expect(configuration.journalCapacity == 7 && configuration.logLevel == .debug)
        for key in ["journal_sizes", "config", "apps"] {
            try Data("server:\n  \(key): x\n".utf8).write(to: file)
            let error = #expect(throws: MockCDNError.self) {
                try ServerConfiguration.resolve(flags: ServeSettings(flags: [.config: file.path]), environment: [:])
            }
            #expect(error?.detail == "\(file.path): line 2, column 3: server.\(key) is not a setting")
        }
        try Data("server:\n  port: 99999\n".utf8).write(to: file)
        let error = #expect(throws: MockCDNError.self) {
            try ServerConfiguration.resolve(flags: ServeSettings(flags: [.config: file.path]), environment: [:])
        }
        #expect(error?.detail == "\(file.path): server.port must be 0...65535")
    }
}
