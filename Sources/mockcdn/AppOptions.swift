import ArgumentParser
import Foundation
import MockCDNCore
import MockCDNServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

    /// `--now`, else the clock of `--server`, else the system clock.
    func signingTime() async throws -> Int64 {
        if let now = self.now { return now }
        guard let server = self.server else { return Int64(Date().timeIntervalSince1970) }
        guard let url = URL(string: server.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/_mockcdn/clock"),
            url.scheme == "http" || url.scheme == "https"
        else { throw ValidationError("--server must be http(s)://HOST:PORT") }
        var request = URLRequest(url: url)
        request.timeoutInterval = 10
        if let token = ProcessInfo.processInfo.environment[ServeSetting.adminToken.environmentVariable], !token.isEmpty
        {
            request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
        }
        do {
            let (data, response) = try await URLSession.shared.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard status == 200, let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                let now = (object["now"] as? NSNumber)?.int64Value
            else { throw ValidationError("--server \(server): GET /_mockcdn/clock answered \(status)") }
            return now
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("--server \(server): \(error.localizedDescription)")
        }
    }
}
