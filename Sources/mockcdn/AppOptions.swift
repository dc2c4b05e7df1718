import ArgumentParser
import Foundation
import MockCDNCore
import MockCDNServer

/// Which app a helper command works for: `--app` of `--config` (or `MOCKCDN_CONFIG`), else the default app.
struct AppOptions: ParsableArguments {
    @Option(help: "App id (default: the first app of the configuration, `demo` without one).")
    var app: String?

    @Option(help: "YAML config file with the apps (MOCKCDN_CONFIG); without one, the built-in demo app.")
    var config: String?

    @Option(help: "Unix time to sign at, e.g. the server clock's `now` (default: the system clock).")
    var now: Int64?

    func validate() throws {
        if let now = self.now, !(0...253_402_300_799).contains(now) {
            throw ValidationError("--now must be a Unix time within 1970...9999")
        }
    }

    func loadApp() throws -> MediaApp {
        do {
            return try CommandLineTools.app(
                id: self.app,
                config: self.config,
                environment: ProcessInfo.processInfo.environment
            )
        } catch {
            throw ValidationError("\(error)")
        }
    }

    var signingTime: Int64 { self.now ?? Int64(Date().timeIntervalSince1970) }
}
