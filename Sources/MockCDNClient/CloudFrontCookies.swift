import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// CloudFront signed cookies, as a web app's backend hands them out (`Set-Cookie` lines, or name-value pairs).
///
/// One set authorises every media URL its policy covers. For a loader that cannot share a browser's cookie
/// jar: attach them to a `URLRequest`, or put them in an `HTTPCookieStorage` (a `URLSession`'s, or a web
/// view's store) for the media host. MockCDN reads them only when the URL carries no CloudFront signature of
/// its own, as CloudFront does.
public struct CloudFrontCookies: Sendable, Equatable {
    /// The names CloudFront reads; anything else in the input is left out.
    public static let names: Set<String> = [
        "CloudFront-Policy", "CloudFront-Expires", "CloudFront-Signature", "CloudFront-Key-Pair-Id",
        "CloudFront-Hash-Algorithm",
    ]

    /// The cookies by name.
    public let values: [String: String]
    /// The path they apply under (the `Path` attribute; `/` when none came).
    public let path: String

    /// Cookies from name-value pairs.
    ///
    /// - Parameters:
    ///   - values: the cookies by name; names outside ``names`` are left out.
    ///   - path: the path they apply under; one not starting with `/` becomes `/`.
    /// - Throws: ``MockCDNClientError/invalidResponse`` without `CloudFront-Signature` and
    ///   `CloudFront-Key-Pair-Id`.
    public init(values: [String: String], path: String = "/") throws(MockCDNClientError) {
        let kept = values.filter { Self.names.contains($0.key) }
        guard kept["CloudFront-Signature"] != nil, kept["CloudFront-Key-Pair-Id"] != nil else {
            throw .invalidResponse
        }
        self.values = kept
        self.path = path.hasPrefix("/") ? path : "/"
    }

    /// Cookies from `Set-Cookie` header lines (with or without the `Set-Cookie:` name), as
    /// `mockcdn sign cookies` prints them; the first `Path` attribute gives `path`.
    ///
    /// - Parameter lines: the header lines; attributes other than `Path` are ignored.
    /// - Throws: ``MockCDNClientError/invalidResponse`` when the lines hold no complete set.
    public init(setCookieLines lines: [String]) throws(MockCDNClientError) {
        var values: [String: String] = [:]
        var path: String? = nil
        for line in lines {
            var text = Substring(line)
            if text.lowercased().hasPrefix("set-cookie:") { text = text.dropFirst("set-cookie:".count) }
            let parts = text.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { continue }
            values[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            for attribute in parts.dropFirst() where attribute.lowercased().hasPrefix("path=") {
                path = path ?? String(attribute.dropFirst("path=".count))
            }
        }
        try self.init(values: values, path: path ?? "/")
    }

    /// The `Cookie` header value: each cookie as `name=value`, in a stable order.
    public var headerValue: String {
        self.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
    }

    /// Adds the cookies to `request`'s `Cookie` header (after any it has), and stops URLSession from
    /// replacing it with its own store's cookies.
    ///
    /// - Parameter request: the request to read media with.
    public func apply(to request: inout URLRequest) {
        let existing = request.value(forHTTPHeaderField: "Cookie").map { $0 + "; " } ?? ""
        request.setValue(existing + self.headerValue, forHTTPHeaderField: "Cookie")
        request.httpShouldHandleCookies = false
    }

    /// The cookies as `HTTPCookie`s for `url`'s host and `path`, for an `HTTPCookieStorage` (secure when the
    /// URL is https).
    ///
    /// - Parameter url: a URL on the media host.
    /// - Returns: one cookie per name, sorted by name; none when `url` has no host.
    public func httpCookies(for url: URL) -> [HTTPCookie] {
        guard let host = url.host else { return [] }
        return self.values.sorted { $0.key < $1.key }.compactMap { name, value in
            var properties: [HTTPCookiePropertyKey: Any] = [
                .name: name, .value: value, .domain: host, .path: self.path,
            ]
            if url.scheme?.lowercased() == "https" { properties[.secure] = "TRUE" }
            return HTTPCookie(properties: properties)
        }
    }
}
