import ArgumentParser
import Foundation
import Logging
import MockCDNServer

/// `mockcdn serve`: run the server until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the MockCDN server.",
        discussion: """
            With no flags: in memory, 127.0.0.1:8080, the demo app, Fixtures/media preloaded when it exists \
            under the working directory. Prints `mockcdn ready on http://HOST:PORT` on stdout once it \
            listens, then the default app's keys (and a generated admin token on a non-loopback address). \
            Logs go to stderr. Each flag can also come from a MOCKCDN_* environment variable (MOCKCDN_PORT, \
            MOCKCDN_DATA_DIR, ...) or the config file's `server:` section; flags win, then the environment, \
            then the file.
            """
    )

    @Option(help: "Address to bind (MOCKCDN_HOST; default 127.0.0.1).")
    var host: String?

    @Option(help: "Port to bind; 0 picks a free port (MOCKCDN_PORT; default 8080).")
    var port: Int?

    @Option(help: "Folder to persist objects in, crash-safe; in memory when omitted (MOCKCDN_DATA_DIR).")
    var dataDir: String?

    @Option(help: "Base URL for links, http(s)://HOST[:PORT], when clients reach the server under another name.")
    var publicURL: String?

    @Option(help: "YAML file with server settings and apps (see README); the demo app stays unless replaced.")
    var config: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical (default info).")
    var logLevel: String?

    @Option(help: "MiB of resized image variants to cache (in memory, and on disk with --data-dir); 0 disables.")
    var variantCacheMb: Int?

    @Option(help: "Folder of media preloaded under the default app at fixtures/{name}; `none` for none.")
    var fixtures: String?

    @Option(help: "Bearer token the /_mockcdn routes require on a non-loopback address (generated when omitted).")
    var adminToken: String?

    @Option(help: "Requests the journal keeps (default 1000).")
    var journalSize: Int?

    @Option(
        help: "Seconds a connection may sit idle, or take to send a request head or the next body bytes (default 30)."
    )
    var idleTimeout: Int?

    @Option(help: "Connections served at once; more wait to be accepted (default: the descriptor limit less 128).")
    var maxConnections: Int?

    @Option(help: "MiB the in-memory store may hold; uploads past it answer 507 (default 1024).")
    var memoryStoreMb: Int?

    func run() async throws {
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.resolve(
                flags: ServeSettings(
                    config: self.config,
                    host: self.host,
                    port: self.port,
                    dataDirectory: self.dataDir,
                    publicURL: self.publicURL,
                    logLevel: self.logLevel,
                    variantCacheMB: self.variantCacheMb,
                    fixtures: self.fixtures,
                    adminToken: self.adminToken,
                    journalSize: self.journalSize,
                    idleTimeout: self.idleTimeout,
                    maxConnections: self.maxConnections,
                    memoryStoreMB: self.memoryStoreMb
                ),
                environment: ProcessInfo.processInfo.environment
            )
        } catch {
            throw ValidationError("\(error)")
        }
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        try await runServer(configuration)
    }
}
