import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import MockCDNCore
import MockCDNS3
import NIOCore
import ServiceLifecycle
import UnixSignals

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
    if let publicURL = configuration.publicURL { try LinkSigner.validatePublicURL(publicURL) }
    var logger = Logger(label: "mockcdn")
    logger.logLevel = configuration.logLevel
    let services = try await makeServices(configuration, logger: logger)
    if let fixtures = services.fixtures, let app = services.apps.apps.first {
        try await fixtures.load(into: services, app: app)
    }
    let router = Router(context: AppRequestContext.self)
    addRoutes(to: router, services: services, configuration: configuration)

    return Application(
        router: router,
        // The idle timeout also bounds a request head that never completes (slowloris) and a body that stops:
        // Hummingbird counts idleness from the last request part read or response written. A request head the
        // parser refuses is journaled by FramingErrorJournal; an answer that says `Connection: close` closes
        // the connection once written (CloseAfterResponseHandler).
        server: .http1(
            configuration: .init(
                additionalChannelHandlers: [
                    FramingErrorJournal(journal: services.journal, clock: services.clock), CloseAfterResponseHandler(),
                ],
                idleTimeout: .seconds(Int64(configuration.idleTimeoutSeconds))
            )
        ),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "MockCDN",
            availableConnectionsDelegate: MaximumAvailableConnections(configuration.connectionLimit)
        ),
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? configuration.port
            let url = "http://\(hostForURL(configuration.host)):\(port)"
            services.links.bound(to: url, publicURL: configuration.publicURL)
            await onReady(url)
        },
        logger: logger
    )
}

/// This build's version, as `mockcdn --version` and the index route show it.
public let mockCDNVersion = "0.6.0"

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

/// IPv6 literals need brackets inside a URL.
private func hostForURL(_ host: String) -> String {
    host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
}

/// The services a server runs on: store, apps, clock, links, variants and the test-control state.
func makeServices(_ configuration: ServerConfiguration, logger: Logger) async throws -> ServerServices {
    // libvips is not started here: CVipsLoader loads it on the first image operation.
    var store: any ObjectStore
    if let location = configuration.s3Store {
        let s3 = S3ObjectStore(client: S3Client(location: location))
        // A bucket that is not there, or keys it refuses, stop the start with the reason; an endpoint that does
        // not answer does not: the server starts degraded, answers 503 until the store is back, and says so
        // on /_mockcdn/health.
        do {
            try await s3.probe()
        } catch let failure as S3Client.Failure where failure.status != 503 && failure.status < 500 {
            throw MockCDNError.invalidConfiguration(
                "--store \(location.description): the S3 store at \(location.endpoint) answered \(failure.code)"
                    + (failure.message.isEmpty ? "" : " (\(failure.message))")
            )
        } catch {
            logger.warning(
                "the S3 store does not answer yet; reads and uploads answer 503 until it does",
                metadata: ["store": "\(location.description)", "endpoint": "\(location.endpoint)"]
            )
        }
        store = s3
    } else if let directory = configuration.dataDirectory {
        let disk = try await DiskObjectStore(directory: directory)
        for entry in disk.skippedEntries {
            logger.warning("skipped an entry of the data directory", metadata: ["entry": "\(entry)"])
        }
        store = disk
    } else {
        store = MemoryObjectStore(byteBudget: configuration.memoryStoreBytes)
    }
    let s3 = store as? S3ObjectStore
    if let wrap = configuration.storeWrapper { store = wrap(store) }
    let metrics = ServerMetrics()
    return ServerServices(
        apps: try AppRegistry(configuration.apps, reserving: routePrefixes),
        store: store,
        clock: configuration.clock,
        state: s3.map { S3AppState(client: $0.client) } ?? LocalAppState(),
        links: LinkSigner(
            base: configuration.publicURL ?? "http://\(hostForURL(configuration.host)):\(configuration.port)"
        ),
        variants: VariantCache(
            memoryLimit: configuration.variantCacheBytes,
            directory: configuration.dataDirectory.map { $0 + "/variants" },
            shared: configuration.s3Variants ? s3.map { S3VariantStore(client: $0.client) } : nil,
            onLookup: { metrics.variantLookup(hit: $0) }
        ),
        journal: Journal(capacity: configuration.journalCapacity),
        faults: FaultInjector(),
        metrics: metrics,
        fixtures: configuration.fixturesDirectory.map(FixtureLoader.init),
        verifiedCredentials: VerifiedCredentialCache(onHit: { metrics.credentialCacheHit() }),
        idleTimeoutSeconds: configuration.idleTimeoutSeconds
    )
}

/// The first path segments of the routes that are not media reads: no app id may be one of them, or its
/// media URLs would be shadowed. A test holds this list to the routes `addRoutes` registers.
let routePrefixes: Set<String> = ["_mockcdn", "app", "channels", "api", "v1", "metrics"]

/// Every route and middleware, in order; `buildApplication` and `RouteCatalog` both call it.
func addRoutes(
    to router: some RouterMethods<AppRequestContext>,
    services: ServerServices,
    configuration: ServerConfiguration
) {
    // Outermost: `100 Continue` at the first body read, and no connection left reading a body nobody sends.
    _ = router.add(middleware: EarlyAnswerMiddleware())
    _ = router.add(
        middleware: BrowserPolicyMiddleware(allowHeaders: [
            .accept, .authorization, .contentType, .origin, .range, .ifNoneMatch, .ifModifiedSince, .ifRange,
            HTTPField.Name("fat")!, StreamAuthenticator.authType,
        ])
    )
    _ = router.add(
        middleware: TestControlMiddleware(
            journal: services.journal,
            faults: services.faults,
            metrics: services.metrics,
            clock: services.clock
        )
    )
    // One group per API surface, each with the middleware that renders any error in its envelope.
    let admin = router.group("_mockcdn").add(middleware: ErrorEnvelopeMiddleware.control)
    // Health stays open on every address: container health checks carry no token.
    HealthController(store: services.store, instance: services.instance).addRoutes(to: admin)
    _ = admin.add(middleware: AdminGuard(configuration: configuration))
    IndexController(apps: services.apps, clock: services.clock, store: services.store).addRoutes(
        root: router.group().add(middleware: ErrorEnvelopeMiddleware.control),
        control: admin
    )
    ClockController(clock: services.clock).addRoutes(to: admin)
    ConsoleController(apps: services.apps, store: services.store, clock: services.clock, links: services.links)
        .addRoutes(to: admin)
    TokensController(apps: services.apps, clock: services.clock).addRoutes(to: admin)
    JournalController(journal: services.journal).addRoutes(to: admin)
    FaultsController(faults: services.faults).addRoutes(to: admin)
    ResetController(services: services).addRoutes(to: admin)
    MetricsController(metrics: services.metrics).addRoutes(
        to: router.group().add(middleware: ErrorEnvelopeMiddleware.control)
    )
    let stream = router.group().add(middleware: ErrorEnvelopeMiddleware.stream)
    StreamAppController(
        auth: services.streamAuth,
        store: services.store,
        clock: services.clock,
        state: services.state,
        links: services.links
    ).addRoutes(to: stream)
    StreamUploadController(
        auth: services.streamAuth,
        store: services.store,
        clock: services.clock,
        state: services.state,
        links: services.links,
        variants: services.variants,
        uploads: services.uploads,
        posters: services.posters
    ).addRoutes(to: stream)
    let cometChat = router.group().add(middleware: ErrorEnvelopeMiddleware.cometChat)
    let cometChatAuth = CometChatAuthenticator(apps: services.apps, clock: services.clock)
    KeysController(apps: services.apps).addRoutes(to: cometChat)
    SecureMediaController(
        store: services.store,
        clock: services.clock,
        links: services.links,
        uploads: services.uploads,
        auth: cometChatAuth
    ).addRoutes(to: cometChat)
    UploadURLController(auth: cometChatAuth, links: services.links, state: services.state).addRoutes(to: cometChat)
    PresignedPutController(
        auth: cometChatAuth,
        links: services.links,
        uploads: services.uploads
    ).addRoutes(to: cometChat)
    CDNController(
        apps: services.apps,
        store: services.store,
        variants: services.variants,
        metrics: services.metrics,
        authorizer: MediaReadAuthorizer(
            clock: services.clock,
            links: services.links,
            verified: services.verifiedCredentials
        )
    ).addRoutes(to: router.group().add(middleware: ErrorEnvelopeMiddleware.media))
}
