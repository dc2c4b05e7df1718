import Prometheus
import Synchronization

/// `GET /metrics`: requests by route, method and status; upload bytes; resize durations; variant cache
/// hits and misses. Prometheus text format from swift-prometheus.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()

    private static var requests: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mockcdn",
            metricName: "requests",
            unitName: "total",
            helpText: "HTTP requests answered, by matched route, method and status"
        )
    }
    private let uploadBytes: Counter
    private let resizeDuration: DurationHistogram
    private let cacheHits: Counter
    private let cacheMisses: Counter
    private let credentialHits: Counter
    private let fastReads: Counter
    /// The request counters by route, method and status, so a request finds its counter with one lookup.
    private let requestCounters = Mutex<[String: Counter]>([:])

    init() {
        self.uploadBytes = self.registry.makeCounter(
            descriptor: .init(
                namespace: "mockcdn",
                metricName: "upload_bytes",
                unitName: "total",
                helpText: "Request body bytes received by upload routes"
            ),
            labels: []
        )
        self.resizeDuration = self.registry.makeDurationHistogram(
            descriptor: .init(
                namespace: "mockcdn",
                metricName: "resize_duration",
                unitName: "seconds",
                helpText: "Time to render an image variant (source read, libvips resize and encode)"
            ),
            labels: [],
            buckets: [
                .milliseconds(5), .milliseconds(20), .milliseconds(50), .milliseconds(100),
                .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
            ]
        )
        self.cacheHits = self.registry.makeCounter(
            descriptor: .init(
                namespace: "mockcdn",
                metricName: "variant_cache_hits",
                unitName: "total",
                helpText: "Variant requests answered from the cache (memory, disk or the shared bucket)"
            ),
            labels: []
        )
        self.cacheMisses = self.registry.makeCounter(
            descriptor: .init(
                namespace: "mockcdn",
                metricName: "variant_cache_misses",
                unitName: "total",
                helpText: "Variant requests that rendered"
            ),
            labels: []
        )
        self.credentialHits = self.registry.makeCounter(
            descriptor: .init(
                namespace: "mockcdn",
                metricName: "credential_cache_hits",
                unitName: "total",
                helpText: "Media reads authorised by a credential verified before and checked again against the clock"
            ),
            labels: []
        )
        self.fastReads = self.registry.makeCounter(
            descriptor: .init(
                namespace: "mockcdn",
                metricName: "fast_reads",
                unitName: "total",
                helpText: "Media reads answered on the connection's event loop (fast_reads), also counted in requests"
            ),
            labels: []
        )
    }

    func request(route: String, method: String, status: Int) {
        let key = route + " " + method + " " + String(status)
        let counter = self.requestCounters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = self.registry.makeCounter(
                descriptor: Self.requests,
                labels: [("route", route), ("method", method), ("status", String(status))]
            )
            counters[key] = counter
            return counter
        }
        counter.increment()
    }

    func uploaded(bytes: Int) { self.uploadBytes.increment(by: Int64(bytes)) }

    func resized(in duration: Duration) { self.resizeDuration.record(duration) }

    func variantLookup(hit: Bool) { (hit ? self.cacheHits : self.cacheMisses).increment() }

    func credentialCacheHit() { self.credentialHits.increment() }

    func fastRead() { self.fastReads.increment() }

    /// The exposition text.
    var text: String { self.registry.emitToString() }
}
