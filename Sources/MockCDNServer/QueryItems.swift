import Foundation

/// A query string as raw `name=value` pairs in order (encoding kept, for signatures) and decoded.
struct QueryItems {
    let raw: [(name: String, text: String)]
    let decoded: [(name: String, value: String)]

    /// At most this many parameters are read; a longer query is cut there.
    static let maximumCount = 100

    init(_ query: String?) {
        var raw: [(String, String)] = []
        var decoded: [(String, String)] = []
        for pair in Self.pairs(query ?? "").prefix(Self.maximumCount) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            // `+` stays `+`: tokens in standard base64 carry it, and RFC 3986 gives it no special meaning.
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? String(parts[1]) : ""
            raw.append((name, String(pair)))
            decoded.append((name, value.removingPercentEncoding ?? value))
        }
        self.raw = raw
        self.decoded = decoded
    }

    /// The decoded values of every parameter called `name`.
    func values(_ name: String) -> [String] {
        self.decoded.filter { $0.name == name }.map(\.value)
    }

    static func join(_ items: [(name: String, text: String)]) -> String {
        items.map(\.text).joined(separator: "&")
    }

    /// Splits at `&`, and also at a second `?` that starts `fat=`: CometChat's JS SDK appends `?fat=…` to
    /// URLs that already have a query.
    private static func pairs(_ query: String) -> [Substring] {
        var pairs: [Substring] = []
        for pair in query.split(separator: "&") {
            var rest = pair
            while let quirk = rest.range(of: "?fat=") {
                if quirk.lowerBound > rest.startIndex { pairs.append(rest[..<quirk.lowerBound]) }
                rest = rest[rest.index(after: quirk.lowerBound)...]
            }
            pairs.append(rest)
        }
        return pairs
    }
}
