import Foundation
import Hummingbird
import Logging
import MockCDNCore
import NIOCore
import ServiceLifecycle
import UnixSignals

/// Runs MockCDN until SIGINT or SIGTERM, printing the ready banner on stdout once it listens.
///
/// - Parameter configuration: what to bind and serve.
/// - Throws: what `buildApplication` throws, or a bind failure.
public func runServer(_ configuration: ServerConfiguration) async throws {
    var configuration = configuration
    var generated: String?
    if !configuration.bindsLoopbackOnly, configuration.adminToken == nil {
        generated = SecureBytes.random(count: 24).hexString
        configuration.adminToken = generated
    }
    let banner = configuration.readyBanner
    let token = generated
    let fixtures = try configuration.fixturesDirectory.map { try FixtureLoader(directory: $0).fileNames().count }
    let app = try await buildApplication(configuration) { baseURL in
        // Written straight to the descriptor: stdout is block-buffered when piped, and scripts wait for it.
        FileHandle.standardOutput.write(Data((banner(baseURL, token, fixtures) + "\n").utf8))
    }
    do {
        try await serviceGroup(running: app, stoppingOn: [.sigint, .sigterm], logger: Logger(label: "mockcdn")).run()
    } catch let error as IOError where error.errnoCode == EADDRINUSE {
        throw MockCDNError.invalidConfiguration(
            "--port \(configuration.port): \(configuration.host):\(configuration.port) is already in use; "
                + "pass --port 0 to let the server pick a free port"
        )
    }
}

/// The service group that runs MockCDN: on `signals` (or `triggerGracefulShutdown`) it stops listening and
/// lets requests in flight finish, but for at most ten seconds; then it cancels them. A handler that never
/// ends (a peer that stops reading, a stuck render) cannot keep a stop, or a test's end, waiting forever.
public func serviceGroup(
    running app: some ApplicationProtocol,
    stoppingOn signals: [UnixSignal],
    logger: Logger
) -> ServiceGroup {
    var configuration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: signals, logger: logger)
    configuration.maximumGracefulShutdownDuration = .seconds(10)
    configuration.maximumCancellationDuration = .seconds(5)
    return ServiceGroup(configuration: configuration)
}
