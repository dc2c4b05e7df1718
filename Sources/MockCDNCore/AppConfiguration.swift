/// A tenant: its identity, credentials and region.
public struct AppConfiguration: Sendable, Equatable {
    public var appID: String
    public var apiKey: String
    public var apiSecret: String
    public var region: String

    public init(appID: String, apiKey: String, apiSecret: String, region: String) {
        self.appID = appID
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.region = region
    }

    /// The app that exists unless the configuration replaces it. Its secret is published on purpose (32+
    /// bytes so JWT libraries do not warn), like LocalStack's `test`/`test`.
    public static let demo = AppConfiguration(
        appID: "demo",
        apiKey: "demo-key",
        apiSecret: "demo-secret-for-local-testing-only",
        region: "us"
    )
}
