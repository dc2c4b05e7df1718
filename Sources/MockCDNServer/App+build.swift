import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import MockCDNCore
import NIOCore

/// Builds the MockCDN application: the same one `mockcdn serve` runs and the tests start on port 0.
///
/// - Parameters:
///   - configuration: what to bind and serve.
///   - onReady: called once the server listens, with its base URL (`http://HOST:PORT`, the real port;
///     `https://` with `--tls-certificate`).
/// - Returns: the application, ready to run.
/// - Throws: `MockCDNError.storageFailure` when the data directory cannot be used, `.imageFailure` when
///   libvips cannot start, `.invalidConfiguration` for TLS files that cannot be used.
public func buildApplication(
    _ configuration: ServerConfiguration,
    onReady: @escaping @Sendable (String) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    if let publicURL = configuration.publicURL { try LinkSigner.validatePublicURL(publicURL) }
    var logger = Logger(label: "mockcdn")
    logger.logLevel = configuration.logLevel
    let services = try await makeServices(configuration, logger: logger)
    try await services.loadFixtures()
    let router = Router(context: AppRequestContext.self)
    let (reads, observers) = addSurfaces(to: router, services: services, configuration: configuration)
    let idleTimeout = TimeAmount.seconds(Int64(configuration.idleTimeoutSeconds))
    let connectionLogger = logger
    let fastReads =
        configuration.fastReads
        ? FastReads(
            reads: reads,
            reserved: routePrefixes,
            observers: observers,
            serverName: serverName,
            logger: logger
        ) : nil
    // The idle timeout also bounds a request head that never completes (slowloris) and a body that stops:
    // Hummingbird counts idleness from the last request part read or response written. A request head the
    // parser refuses is journaled by FramingErrorJournal; an answer that says `Connection: close` closes
    // the connection once written (CloseAfterResponseHandler). With fast reads, the connection state handler
    // that keeps the idle timeout goes in front of FastReadHandler, so it sees the requests answered there
    // too (Hummingbird's own, behind it, is then given none). Each connection is PlainHTTP1Channel: Hummingbird's
    // HTTP/1 pipeline, kept on HTTP/1.1 after a request that offers `Upgrade` (UpgradeDecliner).
    let http = HTTPServerBuilder.plainHTTP1(
        configuration: .init(
            additionalChannelHandlers: [
                FramingErrorJournal(journal: services.journal, clock: services.clock), CloseAfterResponseHandler(),
            ]
                + (fastReads.map {
                    [
                        HTTPConnectionStateHandler(idleTimeout: .init(idleTimeout), logger: connectionLogger),
                        FastReadHandler(reads: $0),
                    ]
                } ?? []),
            idleTimeout: fastReads == nil ? idleTimeout : nil
        )
    )
    let tls = try configuration.tlsConfiguration()
    let scheme = tls == nil ? "http" : "https"
    return Application(
        responder: VirtualHost.Responder(base: router.buildResponder(), apps: services.apps, reserved: routePrefixes),
        server: try tls.map { try .tls(http, tlsConfiguration: $0) } ?? http,
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: serverName,
            availableConnectionsDelegate: MaximumAvailableConnections(configuration.connectionLimit)
        ),
        // Webhook deliveries and the allocator's trim run beside the server, off every request's path.
        services: [services.events.deliveries, services.memoryTrim],
        onServerRunning: { channel in
            let url =
                "\(scheme)://\(hostForURL(configuration.host)):\(channel.localAddress?.port ?? configuration.port)"
            services.links.bound(to: url, publicURL: configuration.publicURL)
            services.events.listener.bound(port: channel.localAddress?.port ?? configuration.port)
            await onReady(url)
        },
        logger: logger
    )
}

/// The `Server` header of every answer.
let serverName = "MockCDN"

/// nosniff and CORS on every answer (`BrowserPolicy`): the router's and the fast reads'.
let browserPolicy = BrowserPolicy(allowHeaders: [
    .accept, .authorization, .contentType, .origin, .range, .ifNoneMatch, .ifModifiedSince, .ifRange,
    CometChatAPI.fatHeader, StreamAPI.authTypeHeader,
])

/// The first path segments of the routes that are not media reads: no app id may be one of them, or its
/// media URLs would be shadowed. A test holds this list to the routes `addSurfaces` registers.
let routePrefixes: Set<String> = [TestControl.prefix, "app", "apps", "channels", "api", "v1", "metrics"]

/// Every middleware and every surface's routes, in order; `buildApplication` and `RouteCatalog` both call it.
/// Each surface gets the services it uses, and only those.
///
/// - Returns: the media reads and the request observers, which the fast reads share.
@discardableResult
func addSurfaces(
    to router: some RouterMethods<AppRequestContext>,
    services: ServerServices,
    configuration: ServerConfiguration
) -> (reads: MediaReads, observers: RequestObservers) {
    // Outermost: `100 Continue` at the first body read, and no connection left reading a body nobody sends.
    _ = router.add(middleware: EarlyAnswerMiddleware())
    let control = TestControl(
        configuration: configuration,
        apps: services.apps,
        store: services.store,
        clock: services.clock,
        links: services.links,
        journal: services.journal,
        faults: services.faults,
        events: services.events,
        vendorHooks: services.vendorHooks,
        metrics: services.metrics,
        instance: services.instance,
        reset: services.reset
    )
    // The request observers, outermost first, which the fast reads run too: the route's identity (and the
    // query, parsed once), each arrival counted for the idle trim, nosniff and CORS, then the metrics, the
    // journal and the faults; a test's own last.
    let observers = RequestObservers(
        [RouteObserver(), TrimObserver(trim: services.memoryTrim), browserPolicy] + control.observers
            + configuration.observers
    )
    observers.add(to: router)
    let cometChat = CometChatAPI(
        apps: services.apps,
        clock: services.clock,
        links: services.links,
        uploads: services.uploads,
        hooks: services.cometChatHooks
    )
    let s3 = S3API(
        apps: services.apps,
        store: services.store,
        clock: services.clock,
        links: services.links,
        remover: ObjectRemover(
            store: services.store,
            events: services.events,
            variants: services.variants,
            posters: services.posters
        ),
        uploads: services.uploads,
        multipart: services.multipart,
        events: services.events,
        keepAlive: KeptAliveAnswer(after: .seconds(configuration.keepAliveAfterSeconds)),
        uploadURLPut: cometChat.uploadURLPut
    )
    // S3's dispatch, inside the journal, so that its refusals are journaled.
    _ = router.add(middleware: s3.gate(reserved: routePrefixes))
    control.addRoutes(to: router)
    StreamAPI(
        apps: services.apps,
        links: services.links,
        variants: services.variants,
        uploads: services.uploads,
        posters: services.posters,
        hooks: services.streamHooks
    ).addRoutes(to: router)
    cometChat.addRoutes(to: router)
    s3.addRoutes(to: router)
    let reads = MediaReads(
        apps: services.apps,
        store: services.store,
        clock: services.clock,
        links: services.links,
        variants: services.variants,
        verified: services.verifiedCredentials,
        leading: [CometChatAPI.readCheck, S3API.readCheck],
        handoffs: [s3.listParts] + s3.subresourceReads + cometChat.filesHost,
        onRender: { [metrics = services.metrics] in metrics.resized(in: $0) }
    )
    reads.addRoutes(to: router)
    return (reads, observers)
}
