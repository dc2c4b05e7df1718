import Hummingbird
import MockCDNCore

/// The test-control surface: the `/_mockcdn` routes and `/metrics` in the control routes' JSON, and the
/// middleware that counts, journals and faults every other request.
struct TestControl {
    let configuration: ServerConfiguration
    let apps: AppRegistry
    /// The store; health also asks it what kind it is.
    let store: any ObjectStore
    let clock: MockClock
    let links: LinkSigner
    let journal: Journal
    let faults: FaultInjector
    /// Upload events: the queue, the targets, the delivery journal.
    let events: ObjectEvents
    /// Vendor-shaped webhooks on demand (`POST /_mockcdn/webhooks`).
    let vendorHooks: VendorWebhooks
    let metrics: ServerMetrics
    /// This process among the instances that share a store (health names it).
    let instance: String
    /// Puts every service back to its startup state.
    let reset: @Sendable () async throws -> Void

    /// The first path segment of the control routes.
    static let prefix = "_mockcdn"

    /// Routes that only tests and operators call: never journaled, faulted or counted. Decided by the route
    /// the router matched, that is by the group it was added to, so `//_mockcdn/clock` (which the router also
    /// matches) is a control route too.
    static func isControl(route: String?) -> Bool {
        guard let route else { return false }
        return route.hasPrefix(Self.routePrefix) || route == "/" + Self.prefix || route == "/metrics"
    }

    /// How the router names the control routes' paths.
    private static let routePrefix = "/\(prefix)/"

    /// Counting, journal and faults, outermost first: the request observers of the test-control state, for
    /// every request the other surfaces answer (and the unrouted ones), on the router's path and the fast path.
    var observers: [any RequestObserver] {
        [
            MetricsObserver(metrics: self.metrics),
            JournalObserver(journal: self.journal, clock: self.clock),
            FaultObserver(faults: self.faults),
        ]
    }

    /// The control routes, in the control routes' envelope; all but health behind the admin guard.
    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        // Every control route, health included, answers only a request that names one well-formed host.
        let control = router.group(RouterPath(Self.prefix)).add(middleware: ErrorEnvelopeMiddleware<HTTPError>())
            .add(middleware: AuthorityCheck())
        // Health stays open on every address and name: container health checks carry no token, and use the
        // container's or the service's name.
        HealthController(store: self.store, instance: self.instance).addRoutes(to: control)
        _ = control.add(middleware: AdminGuard(configuration: self.configuration))
        let root = router.group().add(middleware: ErrorEnvelopeMiddleware<HTTPError>())
        IndexController(apps: self.apps, clock: self.clock, store: self.store).addRoutes(root: root, control: control)
        ClockController(clock: self.clock, onChange: self.events.deliveries.nudge).addRoutes(to: control)
        ConsoleController(apps: self.apps, store: self.store, clock: self.clock, links: self.links)
            .addRoutes(to: control)
        TokensController(apps: self.apps, clock: self.clock).addRoutes(to: control)
        JournalController(journal: self.journal).addRoutes(to: control)
        VerifyController(
            journal: self.journal,
            stepLimit: self.configuration.verifyStepLimit ?? Verification.stepLimit
        )
        .addRoutes(to: control)
        ReportController(journal: self.journal).addRoutes(to: control)
        FaultsController(faults: self.faults).addRoutes(to: control)
        EventsController(events: self.events).addRoutes(to: control)
        NotificationsController(events: self.events).addRoutes(to: control)
        DeliveriesController(events: self.events).addRoutes(to: control)
        VendorWebhooksController(hooks: self.vendorHooks, links: self.links).addRoutes(to: control)
        ResetController(reset: self.reset).addRoutes(to: control)
        MetricsController(metrics: self.metrics).addRoutes(to: root)
    }
}
