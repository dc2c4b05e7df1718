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

    @Option(
        help: "A running MockCDN (http://HOST:PORT) whose clock to sign at; off loopback, MOCKCDN_ADMIN_TOKEN is sent."
    )
    var server: String?

    func validate() throws {
        if let now = self.now, !(0...253_402_300_799).contains(now) {
            throw ValidationError("--now must be a Unix time within 1970...9999")
        }
        if self.now != nil, self.server != nil { throw ValidationError("--now and --server cannot both be given") }
    }

    func loadApp() throws -> MediaApp {
        // Thrown as it is, without the usage line a ValidationError would add (as `serve` does).
        try CommandLineTools.app(id: self.app, config: self.config, environment: ProcessInfo.processInfo.environment)
    }

    /// `--now`, else the clock of `--server`, else the system clock.
    func signingTime() async throws -> Int64 {
        if let now = self.now { return now }
        guard let server = self.server else { return Int64(Date().timeIntervalSince1970) }
        let token = ProcessInfo.processInfo.environment[ServeSetting.adminToken.environmentVariable]
        do {
            return try await ServerClock.now(of: server, adminToken: token)
        } catch let failure as ServerClock.Failure {
            throw ValidationError(failure.description)
        } catch {
            throw ValidationError("--server \(server): \(error)")
        }
    }
}
