import Foundation
import MockCDNCore
import Synchronization

/// What the controllers share: tenants, storage, the clock, channel membership, link signing, resized
/// variants, and the test-control state (journal, faults, metrics, fixtures).
struct ServerServices: Sendable {
    let apps: AppRegistry
    let store: any ObjectStore
    let clock: MockClock
    let channels: ChannelDirectory
    let links: LinkSigner
    let variants: VariantCache
    let journal: Journal
    let faults: FaultInjector
    let metrics: ServerMetrics
    let fixtures: FixtureLoader?
    /// Moves on at every reset, so work that started before one can tell.
    let epoch = ResetEpoch()

    /// Back to the startup state: objects (fixtures reloaded), variants, journal, faults, clock, channel
    /// membership and upload settings.
    func reset() async throws {
        // First, so that an upload that commits from now on sees it and removes itself.
        self.epoch.advance()
        self.journal.clear()
        self.faults.clear()
        self.clock.reset()
        self.channels.removeAll()
        for app in self.apps.apps { app.resetUploadConfigs() }
        self.variants.removeAll()
        try await self.store.removeAll()
        if let fixtures = self.fixtures, let app = self.apps.apps.first {
            try await fixtures.load(into: self, app: app)
        }
    }

    /// Stream's JWT auth over these apps and this clock.
    var streamAuth: StreamAuthenticator { StreamAuthenticator(apps: self.apps, clock: self.clock) }
}

/// A count of resets: an upload notes it when it starts and gives up if it moved by the time it commits.
final class ResetEpoch: Sendable {
    private let value = Atomic<Int>(0)

    var current: Int { self.value.load(ordering: .acquiring) }

    func advance() { self.value.add(1, ordering: .releasing) }
}

/// Builds and signs the CDN links MockCDN hands out: `{base}/{app}/{key}?Expires&Signature&Key-Pair-Id`.
final class LinkSigner: Sendable {
    /// The configured public URL, or `http://HOST:PORT` once the server is bound.
    private let base: Mutex<String>

    init(base: String) {
        self.base = Mutex(Self.trimmed(base))
    }

    var baseURL: String { self.base.withLock { $0 } }

    /// Called once the server is bound, so port 0 becomes the real port; an explicit public URL wins.
    func bound(to url: String, publicURL: String?) {
        self.base.withLock { $0 = Self.trimmed(publicURL ?? url) }
    }

    /// The unsigned URL of a stored object (`{app}/...` key): the base, then each key segment percent-encoded.
    func objectURL(_ key: ObjectKey) -> String {
        self.baseURL + "/" + PercentEncoding.encodePath(key.rawValue)
    }

    /// A canned-policy CloudFront link to a stored object of `app`, valid for the app's link lifetime from `now`.
    func signedURL(app: MediaApp, key: ObjectKey, now: Int64) throws -> String {
        try CloudFrontSigner(keyPair: app.activeKeyPair)
            .cannedURL(self.objectURL(key), expires: now + app.configuration.linkTTL)
    }

    /// A SigV4 presigned GET of a stored object of `app` (path-style, bucket = app id), valid for the app's
    /// presign lifetime from `now`.
    func presignedURL(app: MediaApp, key: ObjectKey, now: Int64) -> String {
        SigV4.presignedURL(
            scheme: self.baseURL.hasPrefix("https://") ? "https" : "http",
            authority: self.authority,
            path: "/" + key.rawValue,
            credentials: app.sigV4Credentials,
            date: now,
            expires: app.configuration.presignTTL
        )
    }

    /// `host:port` of the base URL as clients send it in `Host` (CometChat's `SECURED_MEDIA_HOST`): a
    /// default port (80, 443) is left out, as browsers, curl and botocore leave it out.
    var authority: String {
        let base = self.baseURL
        guard let start = base.range(of: "://")?.upperBound else { return base }
        return Self.withoutDefaultPort(String(base[start...].prefix { $0 != "/" }))
    }

    /// `authority` without a trailing `:80` or `:443`.
    static func withoutDefaultPort(_ authority: String) -> String {
        for port in [":80", ":443"] where authority.hasSuffix(port) { return String(authority.dropLast(port.count)) }
        return authority
    }

    /// Checks a `--public-url`: `http(s)://host[:port]`, nothing after. Media routes sit at the root, so a
    /// path would be signed into links that the server never sees.
    ///
    /// - Parameter url: the configured public URL.
    /// - Throws: `MockCDNError.invalidConfiguration` with the reason.
    static func validatePublicURL(_ url: String) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", components.host?.isEmpty == false,
            components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil,
            components.user == nil
        else {
            throw MockCDNError.invalidConfiguration(
                "--public-url must be http(s)://HOST[:PORT] with no path, query or user: \(url.prefix(200))"
            )
        }
    }

    private static func trimmed(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}
