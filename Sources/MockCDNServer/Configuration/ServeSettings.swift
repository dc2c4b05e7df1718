import Foundation
import Logging
import MockCDNCore

/// What `mockcdn serve` can be told, from any one source: flags, `MOCKCDN_*` environment variables or the
/// config file's `server:` section. `ServerConfiguration.resolve` merges them, flags first.
public struct ServeSettings: Sendable, Equatable {
    public var config: String?
    public var host: String?
    public var port: Int?
    public var dataDirectory: String?
    public var publicURL: String?
    public var logLevel: String?
    public var variantCacheMB: Int?
    public var fixtures: String?
    public var adminToken: String?
    public var journalSize: Int?
    public var idleTimeout: Int?
    public var maxConnections: Int?
    public var memoryStoreMB: Int?

    public init(
        config: String? = nil,
        host: String? = nil,
        port: Int? = nil,
        dataDirectory: String? = nil,
        publicURL: String? = nil,
        logLevel: String? = nil,
        variantCacheMB: Int? = nil,
        fixtures: String? = nil,
        adminToken: String? = nil,
        journalSize: Int? = nil,
        idleTimeout: Int? = nil,
        maxConnections: Int? = nil,
        memoryStoreMB: Int? = nil
    ) {
        self.config = config
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.publicURL = publicURL
        self.logLevel = logLevel
        self.variantCacheMB = variantCacheMB
        self.fixtures = fixtures
        self.adminToken = adminToken
        self.journalSize = journalSize
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.memoryStoreMB = memoryStoreMB
    }

    /// The environment variable of each setting.
    public static let environmentNames = [
        "MOCKCDN_CONFIG", "MOCKCDN_HOST", "MOCKCDN_PORT", "MOCKCDN_DATA_DIR", "MOCKCDN_PUBLIC_URL",
        "MOCKCDN_LOG_LEVEL", "MOCKCDN_VARIANT_CACHE_MB", "MOCKCDN_FIXTURES", "MOCKCDN_ADMIN_TOKEN",
        "MOCKCDN_JOURNAL_SIZE", "MOCKCDN_IDLE_TIMEOUT", "MOCKCDN_MAX_CONNECTIONS", "MOCKCDN_MEMORY_STORE_MB",
    ]

    /// The settings `MOCKCDN_*` variables give; an empty variable counts as unset.
    ///
    /// - Parameter environment: the process environment.
    /// - Throws: `MockCDNError.invalidConfiguration` for a number that is not one.
    public init(environment: [String: String]) throws {
        func text(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        func number(_ name: String) throws -> Int? {
            guard let value = text(name) else { return nil }
            guard let number = Int(value) else { throw MockCDNError.invalidConfiguration("\(name) must be an integer") }
            return number
        }
        self.init(
            config: text("MOCKCDN_CONFIG"),
            host: text("MOCKCDN_HOST"),
            port: try number("MOCKCDN_PORT"),
            dataDirectory: text("MOCKCDN_DATA_DIR"),
            publicURL: text("MOCKCDN_PUBLIC_URL"),
            logLevel: text("MOCKCDN_LOG_LEVEL"),
            variantCacheMB: try number("MOCKCDN_VARIANT_CACHE_MB"),
            fixtures: text("MOCKCDN_FIXTURES"),
            adminToken: text("MOCKCDN_ADMIN_TOKEN"),
            journalSize: try number("MOCKCDN_JOURNAL_SIZE"),
            idleTimeout: try number("MOCKCDN_IDLE_TIMEOUT"),
            maxConnections: try number("MOCKCDN_MAX_CONNECTIONS"),
            memoryStoreMB: try number("MOCKCDN_MEMORY_STORE_MB")
        )
    }

    /// Each setting from `self` when set, else from `other`.
    public func over(_ other: ServeSettings) -> ServeSettings {
        ServeSettings(
            config: self.config ?? other.config,
            host: self.host ?? other.host,
            port: self.port ?? other.port,
            dataDirectory: self.dataDirectory ?? other.dataDirectory,
            publicURL: self.publicURL ?? other.publicURL,
            logLevel: self.logLevel ?? other.logLevel,
            variantCacheMB: self.variantCacheMB ?? other.variantCacheMB,
            fixtures: self.fixtures ?? other.fixtures,
            adminToken: self.adminToken ?? other.adminToken,
            journalSize: self.journalSize ?? other.journalSize,
            idleTimeout: self.idleTimeout ?? other.idleTimeout,
            maxConnections: self.maxConnections ?? other.maxConnections,
            memoryStoreMB: self.memoryStoreMB ?? other.memoryStoreMB
        )
    }
}

extension ServerConfiguration {
    /// The configuration `mockcdn serve` runs: flags over environment over the config file over defaults.
    ///
    /// - Parameters:
    ///   - flags: what the command line set.
    ///   - environment: the process environment (`MOCKCDN_*`).
    /// - Returns: the configuration.
    /// - Throws: `MockCDNError.invalidConfiguration` naming the bad setting.
    public static func resolve(flags: ServeSettings, environment: [String: String]) throws -> ServerConfiguration {
        let early = flags.over(try ServeSettings(environment: environment))
        let file = try early.config.map(ConfigurationFile.settings(from:)) ?? ServeSettings()
        let settings = early.over(file)
        var configuration = ServerConfiguration(
            apps: try early.config.map(ConfigurationFile.apps(from:)) ?? [.demo]
        )
        if let host = settings.host { configuration.host = host }
        if let port = settings.port {
            guard (0...65535).contains(port) else { throw MockCDNError.invalidConfiguration("port must be 0...65535") }
            configuration.port = port
        }
        configuration.dataDirectory = settings.dataDirectory
        configuration.publicURL = settings.publicURL
        if let level = settings.logLevel {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw MockCDNError.invalidConfiguration(
                    "log level must be one of trace, debug, info, notice, warning, error, critical"
                )
            }
            configuration.logLevel = parsed
        }
        if let megabytes = settings.variantCacheMB {
            guard (0...65536).contains(megabytes) else {
                throw MockCDNError.invalidConfiguration("variant cache must be 0...65536 MiB")
            }
            configuration.variantCacheBytes = megabytes * 1024 * 1024
        }
        configuration.fixturesDirectory = settings.fixtures ?? FixtureLoader.defaultDirectory
        if configuration.fixturesDirectory == "none" { configuration.fixturesDirectory = nil }
        if let token = settings.adminToken {
            guard token.utf8.count >= 16 else {
                throw MockCDNError.invalidConfiguration("admin token must be at least 16 characters")
            }
            configuration.adminToken = token
        }
        /// A number within its bounds, or a refusal naming the setting.
        func within(_ value: Int?, _ range: ClosedRange<Int>, _ name: String) throws -> Int? {
            guard let value else { return nil }
            guard range.contains(value) else {
                throw MockCDNError.invalidConfiguration("\(name) must be \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        }
        if let size = try within(settings.journalSize, 1...100_000, "journal size") {
            configuration.journalCapacity = size
        }
        if let seconds = try within(settings.idleTimeout, 1...3600, "idle timeout (seconds)") {
            configuration.idleTimeoutSeconds = seconds
        }
        if let count = try within(settings.maxConnections, 1...1_000_000, "max connections") {
            configuration.maximumConnections = count
        }
        if let megabytes = try within(settings.memoryStoreMB, 1...1_048_576, "memory store (MiB)") {
            configuration.memoryStoreBytes = megabytes * 1024 * 1024
        }
        return configuration
    }
}
