import ArgumentParser
import Logging
import MockCDNCore
import MockCDNServer

/// `mockcdn serve`: run the server until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the MockCDN server.",
        discussion: """
            With no flags: in memory, 127.0.0.1:8080, the demo app. Prints `mockcdn ready on http://HOST:PORT` \
            on stdout once it listens, then the default app's keys. Logs go to stderr.
            """
    )

    @Option(help: "Address to bind.")
    var host = "127.0.0.1"

    @Option(help: "Port to bind; 0 picks a free port.")
    var port = 8080

    @Option(help: "Folder to persist objects in (crash-safe); objects stay in memory when omitted.")
    var dataDir: String?

    @Option(help: "Base URL for links, when clients reach the server under another name.")
    var publicURL: String?

    @Option(help: "YAML file with apps, keys and upload settings (see README); the demo app stays unless replaced.")
    var config: String?

    @Option(help: "MiB of resized image variants to cache (in memory, and on disk with --data-dir); 0 disables.")
    var variantCacheMb = 64

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        guard (0...65535).contains(self.port) else { throw ValidationError("--port must be 0...65535") }
        guard (0...65536).contains(self.variantCacheMb) else {
            throw ValidationError("--variant-cache-mb must be 0...65536")
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let apps = try self.config.map(ConfigurationFile.apps(from:)) ?? [.demo]
        try await runServer(
            ServerConfiguration(
                host: self.host,
                port: self.port,
                dataDirectory: self.dataDir,
                publicURL: self.publicURL,
                apps: apps,
                logLevel: self.logLevel,
                variantCacheBytes: self.variantCacheMb * 1024 * 1024
            )
        )
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
