import Foundation

/// How a client sends its File Access Token with media requests, as CometChat's `SecureMediaMode`.
///
/// The server accepts both on every read; the mode decides what the client builds.
public enum SecureMediaMode: Int, Sendable {
    /// The token rides in the URL as `?fat=...` (CometChat's default).
    case embedded = 0
    /// The token rides in a `fat` header and never in the URL.
    case headerBased = 1
}

/// Where MockCDN is and who the client is.
///
/// The credentials are read through closures each time a request is built, so a test or an app can log in,
/// log out or refresh a token without making a new client.
public struct MockCDNClientConfiguration: Sendable {
    /// The server, e.g. `http://127.0.0.1:8080`.
    public var baseURL: URL
    /// The app id: the first path segment of its media URLs.
    public var appID: String
    /// The app's API key (Stream's `api_key` query parameter).
    public var apiKey: String
    /// `host[:port]` whose media needs the FAT (CometChat's `SECURED_MEDIA_HOST`); by default the base
    /// URL's. Compared without case and without the scheme's default port, as the server writes it.
    public var secureMediaHost: String
    /// Where the FAT goes: the URL (embedded) or a header.
    public var secureMediaMode: SecureMediaMode
    /// The current File Access Token, or nil when nobody is logged in. May be percent-encoded.
    public var fatProvider: @Sendable () -> String?
    /// The current Stream user token (JWT), for uploads and deletes.
    public var userTokenProvider: @Sendable () -> String?

    /// A configuration for the app `appID` on the server at `baseURL`; the defaults are MockCDN's demo app.
    ///
    /// - Parameters:
    ///   - baseURL: the server.
    ///   - appID: the app id (CometChat's app id, the first path segment of media URLs).
    ///   - apiKey: the app's API key.
    ///   - secureMediaHost: `host[:port]` of secured media; nil for the base URL's.
    ///   - secureMediaMode: embedded (default) or header-based.
    ///   - fatProvider: gives the current FAT.
    ///   - userTokenProvider: gives the current Stream user token.
    public init(
        baseURL: URL,
        appID: String = "demo",
        apiKey: String = "demo-key",
        secureMediaHost: String? = nil,
        secureMediaMode: SecureMediaMode = .embedded,
        fatProvider: @escaping @Sendable () -> String? = { nil },
        userTokenProvider: @escaping @Sendable () -> String? = { nil }
    ) {
        self.baseURL = baseURL
        self.appID = appID
        self.apiKey = apiKey
        self.secureMediaHost = secureMediaHost.map(Self.withoutDefaultPort) ?? Self.authority(of: baseURL) ?? ""
        self.secureMediaMode = secureMediaMode
        self.fatProvider = fatProvider
        self.userTokenProvider = userTokenProvider
    }

    /// `host[:port]` of a URL, lower-cased, without the scheme's default port (as the server's
    /// `SECURED_MEDIA_HOST` and browsers write it); nil without a host.
    static func authority(of url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        let scheme = components.scheme?.lowercased()
        guard let port = url.port, !(scheme == "http" && port == 80), !(scheme == "https" && port == 443) else {
            return host
        }
        return "\(host):\(port)"
    }

    /// `host[:port]` without a trailing `:80` or `:443`.
    static func withoutDefaultPort(_ authority: String) -> String {
        let lowered = authority.lowercased()
        for port in [":80", ":443"] where lowered.hasSuffix(port) { return String(lowered.dropLast(port.count)) }
        return lowered
    }
}
