import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// CometChat's secure-media helpers (`Utils.shared` and `createHeaderBasedMediaRequest(for:)`).
///
/// They decide where the File Access Token goes (the URL or a header, by
/// ``MockCDNClientConfiguration/secureMediaMode``), and clean URLs that carry one. Only URLs on the secure
/// media host get a FAT.
public struct SecureMedia: Sendable {
    /// Server, app and credentials.
    public let configuration: MockCDNClientConfiguration

    /// The name of the FAT header and query parameter.
    public static let fatName = "fat"

    /// Helpers for `configuration`.
    ///
    /// - Parameter configuration: server, app, secure-media mode and host, and the FAT.
    public init(configuration: MockCDNClientConfiguration) {
        self.configuration = configuration
    }

    /// `host[:port]` of secured media.
    public var secureMediaHost: String { self.configuration.secureMediaHost }

    /// The current FAT, percent-decoded (CometChat: "always decode FAT" before putting it in a header).
    public var decodedFat: String? {
        guard let fat = self.configuration.fatProvider(), !fat.isEmpty else { return nil }
        return fat.removingPercentEncoding ?? fat
    }

    /// True when the mode is header-based, a FAT is available and a secure media host is configured.
    public var isHeaderModeEnabled: Bool {
        self.configuration.secureMediaMode == .headerBased && self.decodedFat != nil && !self.secureMediaHost.isEmpty
    }

    /// Whether `url` is on the secure media host.
    ///
    /// - Parameter url: any URL.
    /// - Returns: false when no secure media host is configured.
    public func isSecureMediaURL(_ url: URL) -> Bool {
        !self.secureMediaHost.isEmpty
            && MockCDNClientConfiguration.authority(of: url)
                == MockCDNClientConfiguration.withoutDefaultPort(self.secureMediaHost)
    }

    /// True when a request for `url` should carry the `fat` header: header mode is enabled and the URL is
    /// on the secure media host.
    ///
    /// - Parameter url: the URL to be read.
    public func shouldInjectFatHeader(for url: URL) -> Bool {
        self.isHeaderModeEnabled && self.isSecureMediaURL(url)
    }

    /// Whether the URL's query has a `fat` parameter, also after a stray second `?`.
    ///
    /// - Parameter url: any URL.
    public func hasFatQueryParam(in url: URL) -> Bool {
        QueryText(url).items.contains { $0.name == Self.fatName }
    }

    /// The URL without any `fat` query parameter (all of them, also after a stray second `?`); every other
    /// parameter and the fragment stay as they were.
    ///
    /// - Parameter url: any URL.
    /// - Returns: the URL, cleaned; `url` itself when the result would not parse.
    public func stripFatQueryParam(from url: URL) -> URL {
        var query = QueryText(url)
        query.items.removeAll { $0.name == Self.fatName }
        return query.url ?? url
    }

    /// A request for `url`: in header mode, for a URL on the secure media host, without any `fat` query
    /// parameter and with the `fat` header (percent-decoded); otherwise a plain request for the URL.
    ///
    /// - Parameter url: the media URL.
    /// - Returns: the request to send.
    public func createHeaderBasedMediaRequest(for url: URL) -> URLRequest {
        guard self.shouldInjectFatHeader(for: url), let fat = self.decodedFat else { return URLRequest(url: url) }
        var request = URLRequest(url: self.stripFatQueryParam(from: url))
        request.setValue(fat, forHTTPHeaderField: Self.fatName)
        return request
    }

    /// In embedded mode, for a URL on the secure media host, the URL with the FAT appended as `fat=`,
    /// percent-encoded so `+ / =` survive (any old `fat` is replaced); otherwise the URL unchanged.
    ///
    /// - Parameter url: the media URL.
    /// - Returns: the URL to read.
    public func embeddingFat(in url: URL) -> URL {
        guard self.configuration.secureMediaMode == .embedded, self.isSecureMediaURL(url), let fat = self.decodedFat
        else { return url }
        var query = QueryText(url)
        query.items.removeAll { $0.name == Self.fatName }
        query.items.append((Self.fatName, Self.fatName + "=" + QueryText.encode(fat)))
        return query.url ?? url
    }
}

/// A URL's query as raw `name=value` items in order, splitting at `&` and at a stray `?fat=` (CometChat's
/// JS SDK appends `?fat=` to URLs that already have a query); a `?` anywhere else stays in its value.
struct QueryText {
    /// The URL text before the query.
    let head: String
    /// `#fragment`, or empty.
    let fragment: String
    /// Decoded names with their raw text.
    var items: [(name: String, text: String)]

    init(_ url: URL) {
        var text = url.absoluteString
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        self.fragment = fragment
        guard let mark = text.firstIndex(of: "?") else {
            self.head = text
            self.items = []
            return
        }
        self.head = String(text[..<mark])
        let query = text[text.index(after: mark)...]
        var pairs: [Substring] = []
        for pair in query.split(separator: "&") {
            var rest = pair
            while let quirk = rest.range(of: "?fat=") {
                if quirk.lowerBound > rest.startIndex { pairs.append(rest[..<quirk.lowerBound]) }
                rest = rest[rest.index(after: quirk.lowerBound)...]
            }
            pairs.append(rest)
        }
        self.items = pairs.map { pair in
            let name =
                pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            return (name.removingPercentEncoding ?? name, String(pair))
        }
    }

    var url: URL? {
        URL(
            string: self.head + (self.items.isEmpty ? "" : "?" + self.items.map(\.text).joined(separator: "&"))
                + self.fragment
        )
    }

    /// RFC 3986 percent-encoding of a query value: everything but `A-Z a-z 0-9 - . _ ~`.
    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? value
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )
}
