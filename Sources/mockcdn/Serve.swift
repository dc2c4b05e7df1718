import ArgumentParser
import CMockCDNMemory
import Foundation
import Logging
import MockCDNServer

/// `mockcdn serve`: run the server until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the MockCDN server.",
        discussion: """
            With no flags: in memory, 127.0.0.1:8080, the demo app, the installed fixtures preloaded \
            (../share/mockcdn/fixtures beside the binary's folder, else Fixtures/media under the working \
            directory). Prints `mockcdn ready on http://HOST:PORT` on stdout once it \
            listens, then the default app's keys (and a generated admin token on a non-loopback address). \
            Logs go to stderr. Each flag can also come from its MOCKCDN_* environment variable or the config \
            file's `server:` section (the flag's name with underscores); flags win, then the environment, \
            then the file.
            """
    )

    // One option per `ServeSetting`, named as the setting in camelCase, as text: the table checks every
    // value, whatever its source. ArgumentParser declares options statically, so this line is the one place
    // a setting is named again; `flags` finds each by its name, and a test fails on a setting without one.
    @Option(help: ServeSetting.config.argumentHelp)
    var config: String?

    @Option(help: ServeSetting.host.argumentHelp)
    var host: String?

    @Option(help: ServeSetting.port.argumentHelp)
    var port: String?

    @Option(help: ServeSetting.dataDir.argumentHelp)
    var dataDir: String?

    @Option(help: ServeSetting.store.argumentHelp)
    var store: String?

    @Option(help: ServeSetting.s3PathStyle.argumentHelp)
    var s3PathStyle: String?

    @Option(help: ServeSetting.s3Variants.argumentHelp)
    var s3Variants: String?

    @Option(help: ServeSetting.s3MetadataTTL.argumentHelp)
    var s3MetadataTtlMs: String?

    @Option(help: ServeSetting.publicURL.argumentHelp)
    var publicURL: String?

    @Option(help: ServeSetting.tlsCertificate.argumentHelp)
    var tlsCertificate: String?

    @Option(help: ServeSetting.tlsKey.argumentHelp)
    var tlsKey: String?

    @Option(help: ServeSetting.logLevel.argumentHelp)
    var logLevel: String?

    @Option(help: ServeSetting.variantCacheMB.argumentHelp)
    var variantCacheMb: String?

    @Option(help: ServeSetting.fixtures.argumentHelp)
    var fixtures: String?

    @Option(help: ServeSetting.adminToken.argumentHelp)
    var adminToken: String?

    @Option(help: ServeSetting.journalSize.argumentHelp)
    var journalSize: String?

    @Option(help: ServeSetting.credentialCacheSize.argumentHelp)
    var credentialCacheSize: String?

    @Option(help: ServeSetting.idleTimeout.argumentHelp)
    var idleTimeout: String?

    @Option(help: ServeSetting.keepAliveAfter.argumentHelp)
    var keepaliveAfter: String?

    @Option(help: ServeSetting.maxConnections.argumentHelp)
    var maxConnections: String?

    @Option(help: ServeSetting.memoryStoreMB.argumentHelp)
    var memoryStoreMb: String?

    @Option(help: ServeSetting.fastReads.argumentHelp)
    var fastReads: String?

    func run() async throws {
        // Blocks of 1 MiB and more (S3 upload parts, variants) are mapped on their own and unmapped when freed,
        // so memory freed on one thread is not kept in another's arena (CMockCDNMemory says why).
        _ = CMockCDNMemory_keepLargeAllocationsMapped(1 << 20)
        // A configuration error is thrown as it is: ArgumentParser prints it alone, where a ValidationError
        // would add the usage line, which says nothing about a file.
        let configuration = try ServerConfiguration.resolve(
            flags: ServeSettings(flags: self.flags),
            environment: ProcessInfo.processInfo.environment
        )
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        try await runServer(configuration)
    }

    /// The options given on the command line, by setting: each `@Option` above is its setting's name in
    /// camelCase (`dataDir` for `data_dir`).
    private var flags: [ServeSetting: String?] {
        var flags: [ServeSetting: String?] = [:]
        for child in Mirror(reflecting: self).children {
            guard let label = child.label, let option = child.value as? Option<String?> else { continue }
            let name = label.drop { $0 == "_" }.lowercased()
            guard
                let setting = ServeSetting.all.first(where: { $0.name.replacingOccurrences(of: "_", with: "") == name })
            else { preconditionFailure("the option \(label) is no serve setting") }
            flags[setting] = option.wrappedValue
        }
        return flags
    }
}

extension ServeSetting {
    /// The setting's help, its variable and its default, as `--help` shows them.
    var argumentHelp: ArgumentHelp {
        let bounds = self.boundsText.map { "\($0); " } ?? ""
        return ArgumentHelp("\(self.help) (\(self.environmentVariable); \(bounds)default: \(self.defaultText))")
    }
}
