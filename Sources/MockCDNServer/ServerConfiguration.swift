import Logging
import MockCDNCore

/// Everything `mockcdn serve` can be told. The defaults are the contract's: 127.0.0.1:8080, in memory,
/// the demo app.
public struct ServerConfiguration: Sendable {
    /// The address to bind.
    public var host: String
    /// The port to bind; 0 picks a free one.
    public var port: Int
    /// Where objects persist; nil keeps them in memory.
    public var dataDirectory: String?
    /// The base URL links are built on, when clients reach the server through another name (a proxy,
    /// a container); nil means `http://HOST:PORT` as bound.
    public var publicURL: String?
    /// The tenants; the first is the default app.
    public var apps: [AppConfiguration]
    public var logLevel: Logger.Level
    /// Bytes of resized variants kept in memory (and, with a data directory, on disk); 0 turns the variant
    /// cache off, so every transform request resizes (benchmarks).
    public var variantCacheBytes: Int

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        dataDirectory: String? = nil,
        publicURL: String? = nil,
        apps: [AppConfiguration] = [.demo],
        logLevel: Logger.Level = .info,
        variantCacheBytes: Int = 64 * 1024 * 1024
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.publicURL = publicURL
        self.apps = apps
        self.logLevel = logLevel
        self.variantCacheBytes = variantCacheBytes
    }

    /// The lines `mockcdn serve` prints on stdout once it listens: the ready line scripts wait for, then
    /// the default app's keys. A secret is shown only for the published demo app.
    ///
    /// - Parameter baseURL: the URL the server answers on.
    /// - Returns: the lines, without a trailing newline.
    public func readyBanner(baseURL: String) -> String {
        var lines = ["mockcdn ready on \(baseURL)"]
        if let app = self.apps.first {
            let secret = app == .demo ? app.apiSecret : "(from your configuration)"
            lines.append("app_id=\(app.appID) api_key=\(app.apiKey) api_secret=\(secret) region=\(app.region)")
        }
        return lines.joined(separator: "\n")
    }
}
