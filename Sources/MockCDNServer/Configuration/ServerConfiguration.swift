import Foundation
import Logging
import MockCDNCore
import MockCDNS3

/// Everything `mockcdn serve` can be told. The defaults are the contract's (127.0.0.1:8080, in memory, the
/// demo app), as each `ServeSetting` declares them: a property here starts at the declared default, which
/// `init` applies, and the values written next to the properties are placeholders until then.
public struct ServerConfiguration: Sendable {
    /// The address to bind.
    public var host = ""
    /// The port to bind; 0 picks a free one.
    public var port = 0
    /// Where objects persist; nil keeps them in memory. With an S3 store, the folder holds variants only.
    public var dataDirectory: String?
    /// An S3-compatible bucket that holds the objects instead (`--store s3://...`), shared by every instance
    /// configured with it.
    public var s3Store: S3Location?
    /// With `s3Store`, resized variants are also kept in the bucket under `PREFIX/variants/` for every instance.
    public var s3Variants = false
    /// With `s3Store`, how long an object's record (its metadata) is trusted once read: answers made from
    /// metadata alone (HEAD, 304, 412) may be that stale after another instance changed the object; reads of
    /// bytes never are. Zero reads the record at every read.
    public var s3MetadataStaleness = Duration.zero
    /// The base URL links are built on, when clients reach the server through another name (a proxy,
    /// a container); nil means `http://HOST:PORT` as bound.
    public var publicURL: String?
    /// PEM files to serve HTTPS with (`--tls-certificate`, `--tls-key`): both, or neither for plain HTTP.
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// The tenants; the first is the default app.
    public var apps: [AppConfiguration] = [.demo]
    public var logLevel = Logger.Level.info
    /// Bytes of resized variants kept in memory (and, with a data directory, on disk); 0 turns the variant
    /// cache off, so every transform request resizes (benchmarks).
    public var variantCacheBytes = 0
    /// A folder of media preloaded under the default app at `{app}/fixtures/{name}`, at start and on reset.
    public var fixturesDirectory: String?
    /// Required as `Authorization: Bearer` on `/_mockcdn` routes when the server binds a non-loopback
    /// address; nil there means one is generated at start and printed.
    public var adminToken: String?
    /// How many requests the journal keeps.
    public var journalCapacity = 0
    /// How many verified media read credentials are remembered.
    public var credentialCacheCapacity = 0
    /// Seconds a connection may be idle, or take to send a request head or its next body bytes. A presigned
    /// PUT's stall timeout is held below it, so that a stalled upload hears `ERR_UPLOAD_STALLED` before its
    /// connection is closed.
    public var idleTimeoutSeconds = 0
    /// Seconds a CompleteMultipartUpload may join its parts before its 200 goes out and whitespace keeps the
    /// connection alive until its document (`KeptAliveAnswer`); 0: at once.
    public var keepAliveAfterSeconds = 0
    /// Connections served at once; nil: the descriptor limit less a reserve for files.
    public var maximumConnections: Int?
    /// Bytes the in-memory store may hold (without a data directory).
    public var memoryStoreBytes = 0
    /// Whether plain reads of objects held in memory are answered on the event loop (`FastReads`).
    public var fastReads = true
    /// The clock every expiry reads. A harness in the same process (`MockCDNTesting`) keeps a reference to
    /// read and move it without a request.
    public var clock = MockClock()
    /// Each app's notification targets from the config file (`apps[].notifications`), by app id.
    var notifications: [String: NotificationConfiguration] = [:]
    /// The config file, when one is given: each vendor's surface reads its own section of the apps'
    /// webhooks from it (`apps[].webhooks`, `ConfigurationFile.webhooks(_:of:from:)`).
    var configurationFile: String?
    /// Wraps the store the server makes; the tests use it to make the store fail on purpose.
    var storeWrapper: (@Sendable (any ObjectStore) -> any ObjectStore)?
    /// The steps one `POST /_mockcdn/verify` may take, when not the default; the tests lower it to reach the
    /// bound in a debug build.
    var verifyStepLimit: Int?
    /// The upload events' queue, when not a new one; the tests hand one in to await its long polls.
    var eventQueue: EventQueue?
    /// Request observers after MockCDN's own (`RequestObservers`), innermost; the tests add one to see that
    /// every path runs them.
    var observers: [any RequestObserver] = []

    /// A configuration at every setting's declared default (`ServeSetting.all`), but for what is given here.
    public init(
        host: String? = nil,
        port: Int? = nil,
        dataDirectory: String? = nil,
        publicURL: String? = nil,
        apps: [AppConfiguration] = [.demo],
        logLevel: Logger.Level? = nil,
        variantCacheBytes: Int? = nil,
        fixturesDirectory: String? = nil,
        adminToken: String? = nil,
        journalCapacity: Int? = nil,
        idleTimeoutSeconds: Int? = nil,
        maximumConnections: Int? = nil,
        memoryStoreBytes: Int? = nil
    ) {
        let resolution = ServeSetting.Resolution(environment: [:], settings: ServeSettings())
        for setting in ServeSetting.all {
            guard let value = setting.defaultValue else { continue }
            // A declared default is within its own bounds (`ServeSettingTableTests`), so it always applies.
            try! setting.apply?(&self, value, resolution)
        }
        self.apps = apps
        self.dataDirectory = dataDirectory
        self.publicURL = publicURL
        self.fixturesDirectory = fixturesDirectory
        self.adminToken = adminToken
        self.maximumConnections = maximumConnections
        if let host { self.host = host }
        if let port { self.port = port }
        if let logLevel { self.logLevel = logLevel }
        if let variantCacheBytes { self.variantCacheBytes = variantCacheBytes }
        if let journalCapacity { self.journalCapacity = journalCapacity }
        if let idleTimeoutSeconds { self.idleTimeoutSeconds = idleTimeoutSeconds }
        if let memoryStoreBytes { self.memoryStoreBytes = memoryStoreBytes }
    }

    /// Descriptors kept free of connections, for store files, variant files and libvips.
    static let descriptorReserve = 128

    /// The connection cap in force: the configured one, else the soft descriptor limit less the reserve,
    /// so that idle connections can never take the descriptors the server needs to answer.
    public var connectionLimit: Int {
        if let maximumConnections { return maximumConnections }
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 512 }
        let soft = Int(clamping: min(limit.rlim_cur, 65536))
        return max(16, soft - Self.descriptorReserve)
    }

    /// The lines `mockcdn serve` prints on stdout once it listens: the ready line scripts wait for, the
    /// default app's keys (a secret is shown only for the published demo app), the admin token when one was
    /// generated, then the apps served and the fixtures preloaded.
    ///
    /// - Parameters:
    ///   - baseURL: the URL the server answers on.
    ///   - generatedAdminToken: the admin token made at start, printed so the operator can use it.
    ///   - fixtures: how many fixtures were preloaded, when a folder is configured.
    /// - Returns: the lines, without a trailing newline.
    public func readyBanner(baseURL: String, generatedAdminToken: String? = nil, fixtures: Int? = nil) -> String {
        var lines = ["mockcdn ready on \(baseURL)"]
        if let app = self.apps.first {
            let secret = app == .demo ? app.apiSecret : "(from your configuration)"
            lines.append("app_id=\(app.appID) api_key=\(app.apiKey) api_secret=\(secret) region=\(app.region)")
        }
        if let generatedAdminToken { lines.append("admin_token=\(generatedAdminToken)") }
        var served = "apps=" + self.apps.map(\.appID).joined(separator: ",")
        if let fixtures, let app = self.apps.first { served += " fixtures=\(fixtures) at \(app.appID)/fixtures/" }
        lines.append(served)
        return lines.joined(separator: "\n")
    }

    /// Loopback binds leave the test-control routes open; any other address needs the admin token.
    public var bindsLoopbackOnly: Bool {
        let host = self.host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        let numeric127 = host.hasPrefix("127.") && host.allSatisfy { $0.isNumber || $0 == "." }
        return host == "localhost" || host == "::1" || numeric127
    }
}
