import Foundation
import Hummingbird
import Logging
import MockCDNCore
import NIOCore

/// Builds the MockCDN application: the same one `mockcdn serve` runs and the tests start on port 0.
///
/// - Parameters:
///   - configuration: what to bind and serve.
///   - onReady: called once the server listens, with its base URL (`http://HOST:PORT`, the real port).
/// - Returns: the application, ready to run.
/// - Throws: `MockCDNError.storageFailure` when the data directory cannot be used, `.imageFailure` when
///   libvips cannot start.
public func buildApplication(
    _ configuration: ServerConfiguration,
    onReady: @escaping @Sendable (String) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "mockcdn")
    logger.logLevel = configuration.logLevel
    try Vips.initialize()
    let store: any ObjectStore =
        if let directory = configuration.dataDirectory {
            try await DiskObjectStore(directory: directory)
        } else {
            MemoryObjectStore()
        }
    logger.debug("store ready", metadata: ["store": "\(type(of: store))"])

    let router = Router(context: AppRequestContext.self)
    HealthController().addRoutes(to: router.group("_mockcdn"))

    return Application(
        router: router,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "MockCDN"),
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? configuration.port
            await onReady("http://\(hostForURL(configuration.host)):\(port)")
        },
        logger: logger
    )
}

/// Runs MockCDN until SIGINT or SIGTERM, printing the ready banner on stdout once it listens.
///
/// - Parameter configuration: what to bind and serve.
/// - Throws: what `buildApplication` throws, or a bind failure.
public func runServer(_ configuration: ServerConfiguration) async throws {
    let app = try await buildApplication(configuration) { baseURL in
        // Written straight to the descriptor: stdout is block-buffered when piped, and scripts wait for it.
        FileHandle.standardOutput.write(Data((configuration.readyBanner(baseURL: baseURL) + "\n").utf8))
    }
    try await app.runService()
}

/// IPv6 literals need brackets inside a URL.
private func hostForURL(_ host: String) -> String {
    host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
}
