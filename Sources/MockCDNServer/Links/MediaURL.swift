import Foundation
import MockCDNCore

/// An absolute http(s) URL as a client names a stored object: `{scheme}://{authority}/{app}/{key}`. The
/// presign route and `mockcdn sign` read URLs with it, so both take the same spellings.
public struct MediaURL: Sendable {
    /// `http` or `https`, lowercased.
    public let scheme: String
    /// Host and port as sent, a default port (`:80`, `:443`) left out: what SigV4 signs as `host`.
    public let authority: String
    private let percentEncodedPath: String

    /// Nil unless `text` is an absolute http(s) URL with a host.
    public init?(_ text: String) {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.percentEncodedHost, !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.authority = HostAuthority.withoutDefaultPort(host + (url.port.map { ":\($0)" } ?? ""))
        self.percentEncodedPath = url.percentEncodedPath
    }

    /// The object of `app` the path names, or nil when it names none (another app, a path that climbs out).
    public func key(in app: String) -> ObjectKey? {
        try? ObjectKey(app: app, mediaPath: self.percentEncodedPath)
    }
}
