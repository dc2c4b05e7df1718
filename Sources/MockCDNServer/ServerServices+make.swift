import Foundation
import Logging
import MockCDNCore
import MockCDNS3

/// IPv6 literals need brackets inside a URL.
func hostForURL(_ host: String) -> String {
    host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
}

/// The services a server runs on: store, apps, clock, links, variants and the test-control state.
func makeServices(_ configuration: ServerConfiguration, logger: Logger) async throws -> ServerServices {
    // libvips is not started here: CVipsLoader loads it on the first image operation.
    var store: any ObjectStore
    if let location = configuration.s3Store {
        let clock = configuration.clock
        let s3 = S3ObjectStore(
            client: S3Client(location: location),
            metadataStaleness: configuration.s3MetadataStaleness,
            now: { clock.now }
        )
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
    // The buckets CreateBucket makes: in the S3 store's bucket, beside the data directory's objects, or in memory.
    let directory: any BucketDirectory =
        if let s3 { S3BucketDirectory(client: s3.client) } else {
            try LocalBucketDirectory(
                file: configuration.dataDirectory.map {
                    URL(fileURLWithPath: $0).appendingPathComponent("buckets.json")
                }
            )
        }
    let apps = try AppRegistry(
        configuration.apps,
        reserving: routePrefixes,
        buckets: BucketRegistry(directory: directory)
    )
    // A shared directory (the S3 store's) that does not answer is read on first use instead, so that the server
    // starts degraded as the store's probe above allows.
    do {
        try await apps.buckets.refresh { apps.configuredApp(id: $0) }
    } catch let error where directory.isShared {
        logger.warning(
            "the created buckets could not be read yet; they are read again when a bucket is named",
            metadata: ["error": "\(error)"]
        )
    }
    let faults = FaultInjector()
    let listener = OwnListener(host: configuration.host, port: configuration.port, publicURL: configuration.publicURL)
    try checkTargets(configuration, against: listener)
    let streamSettings = try configuredWebhooks(
        StreamWebhookSettings.self,
        of: "stream",
        in: configuration,
        checked: StreamWebhookSettings.configured,
        refusal: { $0.ownListenerRefusal(listener) }
    )
    let cometChatWebhooks = try configuredWebhooks(
        [CometChatWebhook].self,
        of: "cometchat",
        in: configuration,
        checked: CometChatWebhook.configured,
        refusal: { CometChatWebhook.ownListenerRefusal($0, listener) }
    )
    let events = ObjectEvents(
        apps: apps,
        clock: configuration.clock,
        configured: configuration.notifications,
        deliveries: WebhookDeliveries(clock: configuration.clock) { url in faults.fire(delivery: url) },
        listener: listener,
        queue: configuration.eventQueue ?? EventQueue()
    )
    let links = LinkSigner(
        base: configuration.publicURL ?? "http://\(hostForURL(configuration.host)):\(configuration.port)"
    )
    let streamHooks = StreamWebhooks(
        clock: configuration.clock,
        store: store,
        links: links,
        listener: listener,
        configured: streamSettings
    )
    let cometChatHooks = CometChatWebhooks(
        clock: configuration.clock,
        links: links,
        listener: listener,
        configured: cometChatWebhooks
    )
    return ServerServices(
        apps: apps,
        store: store,
        events: events,
        vendorHooks: VendorWebhooks(
            apps: apps,
            store: store,
            deliveries: events.deliveries,
            vendors: [
                .init(name: "stream", hook: streamHooks),
                .init(name: "cometchat", hook: cometChatHooks),
            ]
        ),
        streamHooks: streamHooks,
        cometChatHooks: cometChatHooks,
        clock: configuration.clock,
        state: s3.map { S3AppState(client: $0.client) } ?? LocalAppState(),
        links: links,
        variants: VariantCache(
            memoryLimit: configuration.variantCacheBytes,
            directory: configuration.dataDirectory.map { $0 + "/variants" },
            shared: configuration.s3Variants ? s3.map { S3VariantStore(client: $0.client) } : nil,
            onLookup: { metrics.variantLookup(hit: $0) }
        ),
        journal: Journal(capacity: configuration.journalCapacity),
        faults: faults,
        metrics: metrics,
        fixtures: configuration.fixturesDirectory.map(FixtureLoader.init),
        verifiedCredentials: VerifiedCredentialCache(
            capacity: configuration.credentialCacheCapacity,
            onHit: { metrics.credentialCacheHit() }
        ),
        idleTimeoutSeconds: configuration.idleTimeoutSeconds
    )
}

/// Refuses a config file's webhook on MockCDN's own control routes, as the routes that set them at run time
/// do: by the configured port (a port of 0 is not known yet; a file cannot name the port it will get) and the
/// public URL.
///
/// - Parameters:
///   - configuration: the server's configuration, with the config file's targets.
///   - listener: MockCDN's own listener, before it is bound.
/// - Throws: `MockCDNError.invalidConfiguration` naming the app and the target.
private func checkTargets(_ configuration: ServerConfiguration, against listener: OwnListener) throws {
    for (app, targets) in configuration.notifications.sorted(by: { $0.key < $1.key }) {
        if let refusal = targets.ownListenerRefusal(listener) {
            throw MockCDNError.invalidConfiguration("app \(app): notifications: \(refusal)")
        }
    }
}

/// One vendor's section of the config file's webhooks (`apps[].webhooks.stream`, `.cometchat`), read as the
/// surface's own type and checked as its set-up routes check it.
///
/// - Parameters:
///   - type: the section's type.
///   - vendor: the section's name.
///   - configuration: the server's configuration, naming the file.
///   - checked: the surface's check, which gives what it keeps.
///   - refusal: why a checked section may not be delivered to (a URL on MockCDN's own control routes), or nil.
/// - Returns: each app's checked section, by app id.
/// - Throws: `MockCDNError.invalidConfiguration` naming the app and the member.
private func configuredWebhooks<Section: Decodable, Checked>(
    _ type: Section.Type,
    of vendor: String,
    in configuration: ServerConfiguration,
    checked: (Section) throws -> Checked,
    refusal: (Checked) -> String?
) throws -> [String: Checked] {
    guard let path = configuration.configurationFile else { return [:] }
    var sections: [String: Checked] = [:]
    for (app, section) in try ConfigurationFile.webhooks(type, of: vendor, from: path).sorted(by: { $0.key < $1.key }) {
        let kept: Checked
        do {
            kept = try checked(section)
        } catch let error as any CategorizedError {
            throw MockCDNError.invalidConfiguration("\(path): app \(app): webhooks: \(error.publicMessage)")
        }
        if let refusal = refusal(kept) {
            throw MockCDNError.invalidConfiguration("app \(app): webhooks: \(vendor): \(refusal)")
        }
        sections[app] = kept
    }
    return sections
}
