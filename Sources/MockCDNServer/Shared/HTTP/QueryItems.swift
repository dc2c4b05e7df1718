import MockCDNCore

/// A query string as raw `name=value` pairs in order (encoding kept, for signatures) and decoded.
///
/// Parsed on UTF-8 bytes: a signed link carries hundreds of characters of signature, and Foundation's
/// string search and percent-decoding cost more per request than verifying the signature.
struct QueryItems: Sendable {
    let raw: [(name: String, text: String)]
    let decoded: [(name: String, value: String)]

    /// At most this many parameters are read; a longer query is cut there.
    static let maximumCount = 100

    init(_ query: String?) {
        var raw: [(String, String)] = []
        var decoded: [(String, String)] = []
        for pair in Self.pairs(Array((query ?? "").utf8)).prefix(Self.maximumCount) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let nameBytes = equals.map { pair[pair.startIndex..<$0] } ?? pair[...]
            let valueBytes = equals.map { pair[($0 + 1)...] } ?? []
            // `+` stays `+`: tokens in standard base64 carry it, and RFC 3986 gives it no special meaning.
            let name = PercentEncoding.decode(nameBytes) ?? String(decoding: nameBytes, as: UTF8.self)
            raw.append((name, String(decoding: pair, as: UTF8.self)))
            decoded.append((name, PercentEncoding.decode(valueBytes) ?? String(decoding: valueBytes, as: UTF8.self)))
        }
        self.raw = raw
        self.decoded = decoded
    }

    /// The decoded values of every parameter called `name`.
    func values(_ name: String) -> [String] {
        self.decoded.filter { $0.name == name }.map(\.value)
    }

    /// The decoded value of the first parameter called `name`.
    func first(_ name: String) -> String? {
        self.decoded.first { $0.name == name }?.value
    }

    /// The first parameter whose name is not one of `names`: what a route that takes only those refuses.
    func firstName(notIn names: Set<String>) -> String? {
        self.decoded.first { !names.contains($0.name) }?.name
    }

    static func join(_ items: [(name: String, text: String)]) -> String {
        items.map(\.text).joined(separator: "&")
    }

    private static let quirk = Array("?fat=".utf8)

    /// Splits at `&`, and also at a second `?` that starts `fat=`: CometChat's JS SDK appends `?fat=…` to
    /// URLs that already have a query.
    private static func pairs(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var pairs: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        func close(_ end: Int) {
            if end > start { pairs.append(bytes[start..<end]) }
        }
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "&") {
                close(index)
                start = index + 1
            } else if bytes[index] == UInt8(ascii: "?"), bytes[index...].starts(with: Self.quirk) {
                close(index)
                start = index + 1
            }
            index += 1
        }
        close(bytes.count)
        return pairs
    }
}
