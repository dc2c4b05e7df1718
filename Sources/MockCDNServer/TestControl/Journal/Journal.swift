import Foundation
import MockCDNCore
import Synchronization

/// The request journal: the last `capacity` requests (the test-control routes excluded), oldest first,
/// with secrets in the path and query redacted and only the *source* of a credential, never the credential.
final class Journal: Sendable {
    /// One request as `GET /_mockcdn/requests` shows it; bytes out and duration are filled in when the
    /// body has been written.
    final class Entry: Sendable {
        /// `r1`, `r2`, ... in arrival order, never reused (not after a clear or a reset either).
        let id: String
        /// When the request arrived: the real time, Unix seconds with fractions.
        let receivedAt: Double
        /// When the request arrived by the MockCDN clock, Unix seconds: what its expiries were judged at.
        let clock: Int64
        let method: String
        let path: String
        let query: String
        /// The route it was matched to (`/{app}/**`), as the metrics count it; nil when no route matched.
        let route: String?
        private let state: Mutex<State>

        struct State {
            var credential: CredentialSource
            var status: Int
            var bytesIn: Int
            var bytesOut: Int
            var durationMilliseconds: Double
            var fault: String?
            /// Why an error answer refused the request: its code and message (`AccessDenied: Request has
            /// expired`), which name the rule that failed and never a credential's value.
            var reason: String? = nil
            /// For a credential refused only because its time had passed: the expiry it named, Unix seconds by
            /// the MockCDN clock (never the credential), so a near miss can say how long before `clock` it
            /// expired.
            var expiredAt: Int64? = nil
            /// The kinds of fault the rule in `fault` applied (`delay`, `status`, `throttle`, `truncate`,
            /// `reset`); empty when none fired. The rule may be deleted later; its kinds stay here.
            var faultKinds: [String] = []
        }

        init(
            id: String,
            receivedAt: Double,
            clock: Int64,
            method: String,
            path: String,
            query: String,
            route: String?,
            state: State
        ) {
            self.id = id
            self.receivedAt = receivedAt
            self.clock = clock
            self.method = method
            self.path = path
            self.query = query
            self.route = route
            self.state = Mutex(state)
        }

        var snapshot: State { self.state.withLock { $0 } }

        func update(_ change: (inout State) -> Void) {
            self.state.withLock { change(&$0) }
        }
    }

    /// Parameter names whose values are secrets, compared after `canonicalName` (percent-decoded, lower-cased,
    /// cut at a `[`), so `FAT`, `Fat`, `%66at` and `fat[]` are all `fat`. Each is a credential in itself:
    /// - `fat`: a CometChat File Access Token;
    /// - `signature`: a CloudFront signed link's signature (with `Expires` or `Policy`, it is the link);
    /// - `x-amz-signature`, `x-amz-security-token`: a SigV4 presigned link's signature and STS session token;
    /// - `token`, `access_token`, `jwt`: the usual names of a bearer token in a URL (RFC 6750 2.3 names
    ///   `access_token`);
    /// - `authorization`: Stream's WebSocket carries the user's JWT as `?authorization=`.
    ///
    /// Kept visible, because tests read them and none grants access alone: `X-Amz-Credential` (an access key
    /// id and scope, not the secret key), `Policy` (what a CloudFront link allows, signed but not secret),
    /// `Key-Pair-Id`, `Expires`, `api_key` (public by design, like a Stream app's key).
    static let secretParameters: Set<String> = [
        "fat", "signature", "x-amz-signature", "x-amz-security-token", "token", "access_token", "jwt",
        "authorization",
    ]
    /// The most UTF-8 bytes of a path or query an entry keeps (then `…`), so an entry's memory has a bound
    /// whatever the characters: `--journal-size` entries of at most this much each (`docs/memory.md`).
    static let maximumTextLength = 2048

    /// The text, or as many of its first whole Unicode scalars as fit in `maximumTextLength` bytes and `…`.
    static func bounded(_ text: String) -> String {
        guard text.utf8.count > maximumTextLength else { return text }
        var kept = String.UnicodeScalarView()
        var length = 0
        for scalar in text.unicodeScalars {
            length += UTF8.width(scalar)
            guard length <= maximumTextLength else { break }
            kept.append(scalar)
        }
        return String(kept) + "…"
    }

    let capacity: Int
    private let ring: Mutex<(entries: [Entry], next: Int)>
    private let lastID = Atomic<Int>(0)

    /// A journal that keeps the last `capacity` requests (`--journal-size`).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        self.ring = Mutex(([], 0))
    }

    /// Starts an entry for a request and keeps it (dropping the oldest past capacity).
    ///
    /// Secrets are redacted before the text is cut to length, so where the cut falls never decides what is
    /// recognised, and outside the lock, which other requests wait on.
    ///
    /// - Parameters:
    ///   - method: the request method.
    ///   - path: the path as sent (percent-encoding kept).
    ///   - query: the parsed query.
    ///   - route: the route it was matched to; nil when none was.
    ///   - clock: the MockCDN clock's now.
    ///   - state: the entry's first state.
    /// - Returns: the entry, for the middleware to complete.
    func record(
        method: String,
        path: String,
        query: QueryItems,
        route: String? = nil,
        clock: Int64,
        state: Entry.State
    ) -> Entry {
        let entry = Entry(
            id: "r\(self.lastID.add(1, ordering: .relaxed).newValue)",
            receivedAt: Date().timeIntervalSince1970,
            clock: clock,
            method: method,
            path: Self.bounded(Self.redacted(path: path)),
            query: Self.bounded(Self.redacted(query)),
            route: route,
            state: state
        )
        return self.ring.withLock { ring in
            if ring.entries.count < self.capacity {
                ring.entries.append(entry)
            } else {
                ring.entries[ring.next] = entry
                ring.next = (ring.next + 1) % self.capacity
            }
            return entry
        }
    }

    /// Every entry, oldest first.
    var entries: [Entry] {
        self.ring.withLock { Array($0.entries[$0.next...] + $0.entries[..<$0.next]) }
    }

    func clear() {
        self.ring.withLock { $0 = ([], 0) }
    }

    /// The query as sent, with secrets replaced by `REDACTED`: the value of a parameter with a secret name, any
    /// value that holds a credential whatever its name, and a bare credential sent as a name.
    ///
    /// A pair is also split at `?` and `;`: CometChat's JS SDK appends `?fat=` to a URL that already has a
    /// query (the server splits only that exact spelling, the journal redacts every spelling), and some
    /// servers take `;` as a separator.
    ///
    /// - Parameter query: the parsed query.
    /// - Returns: the query text, redacted.
    static func redacted(_ query: QueryItems) -> String {
        // The pairs joined first and redacted in one pass (every signed read is journaled): no range crosses
        // the `&` between two pairs, so this is each pair redacted, then joined.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(query.raw.reduce(0) { $0 + $1.text.utf8.count + 1 })
        var secrets: [Range<Int>] = []
        for (index, pair) in query.raw.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "&")) }
            var start = bytes.count
            bytes.append(contentsOf: pair.text.utf8)
            let pairEnd = bytes.count
            // A secret's value runs to the end of the pair: whatever follows it may be more of it.
            for end in start..<pairEnd where bytes[end] == UInt8(ascii: "?") || bytes[end] == UInt8(ascii: ";") {
                secrets += Redaction.parameterSecrets(bytes[start..<end], valueRunsTo: pairEnd)
                start = end + 1
            }
            secrets += Redaction.parameterSecrets(bytes[start..<pairEnd], valueRunsTo: pairEnd)
        }
        return Redaction.replacing(secrets, in: bytes)
    }

    /// The path as sent, with secrets replaced by `REDACTED`: the value of a `;name=value` path parameter with
    /// a secret name, and any segment (or path parameter's value) that holds a credential.
    ///
    /// A secret path parameter's value runs to the next `;` or the end, slashes included: a base64 secret may
    /// carry a raw `/`, and hiding the rest of a path costs less than showing half a signature. A credential
    /// is recognised within one segment; a token split by raw slashes would not route anywhere anyway.
    ///
    /// - Parameter path: the path as sent, percent-encoding kept.
    /// - Returns: the path, redacted.
    static func redacted(path: String) -> String {
        let bytes = Array(path.utf8)
        var secrets: [Range<Int>] = []
        var pieceStart = 0
        var isParameter = false
        for index in 0...bytes.count {
            let byte = index < bytes.count ? bytes[index] : UInt8(ascii: "/")
            guard byte == UInt8(ascii: "/") || byte == UInt8(ascii: ";") else { continue }
            let piece = bytes[pieceStart..<index]
            if isParameter {
                let valueEnd = bytes[index...].firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
                secrets += Redaction.parameterSecrets(piece, valueRunsTo: valueEnd)
            } else if Redaction.holdsCredential(piece) {
                secrets.append(piece.indices)
            }
            pieceStart = index + 1
            isParameter = byte == UInt8(ascii: ";")
        }
        return Redaction.replacing(secrets, in: bytes)
    }
}

/// How the journal recognises a secret in a URL: by a parameter's name, or by the shape of a credential.
enum Redaction {
    static let replacement = Array("REDACTED".utf8)

    /// A parameter name as the secret list compares it: percent-decoded (again while it still decodes, so a
    /// doubly encoded `%2566at` is `fat` too), lower-cased, and cut at the first `[` (`fat[]`, `fat[0]`).
    ///
    /// - Parameter name: the name's bytes as sent.
    /// - Returns: the canonical name.
    static func canonicalName(_ name: some Collection<UInt8>) -> String {
        var bytes = Array(name)
        // Three rounds undo any encoding a real client applies; more would let a long name cost more.
        for _ in 0..<3 where bytes.contains(UInt8(ascii: "%")) {
            let decoded = Array(percentDecoded(bytes[...]))
            guard decoded != bytes else { break }
            bytes = decoded
        }
        if let bracket = bytes.firstIndex(of: UInt8(ascii: "[")) { bytes.removeSubrange(bracket...) }
        return String(decoding: bytes, as: UTF8.self).lowercased()
    }

    /// Whether a parameter name is secret.
    ///
    /// - Parameter name: the name's bytes as sent.
    /// - Returns: true when its value must not be shown.
    static func isSecret(name: some Collection<UInt8>) -> Bool {
        Journal.secretParameters.contains(canonicalName(name))
    }

    /// The ranges of one `name=value` (or bare) parameter to hide: the value when the name is secret or the
    /// value holds a credential, the whole parameter when its name is a credential.
    ///
    /// - Parameters:
    ///   - parameter: the parameter's bytes as sent, indexed as in the text it came from.
    ///   - valueRunsTo: where a secret name's value is taken to end (at or past the parameter's end).
    /// - Returns: the ranges to replace.
    static func parameterSecrets(_ parameter: ArraySlice<UInt8>, valueRunsTo end: Int) -> [Range<Int>] {
        guard let equals = parameter.firstIndex(of: UInt8(ascii: "=")) else {
            return holdsCredential(parameter) ? [parameter.indices] : []
        }
        let name = parameter[..<equals]
        let value = parameter[(equals + 1)...]
        if holdsCredential(name) { return [parameter.indices] }
        if isSecret(name: name) { return [(equals + 1)..<max(end, parameter.endIndex)] }
        return holdsCredential(value) ? [value.indices] : []
    }

    /// Whether percent-encoded text holds a JWT or a File Access Token.
    ///
    /// Looks at each run of base64 and base64url characters and dots (the decoded text, so `%2B`, `%2F` and
    /// `%3D` count): one whose first dot-separated part decodes to a JSON object, and which has more after
    /// the dot, is a JWT (`header.payload.signature`) or a FAT (`payload.MAC`). A run that is not is tried
    /// again from its first `eyJ` (base64 of `{"`), so `Bearer%20eyJ...` and `t=eyJ...` are found; each run is
    /// looked at at most twice, so the cost stays linear in the text.
    ///
    /// - Parameter text: the text as sent.
    /// - Returns: true when it holds something that looks like a credential.
    static func holdsCredential(_ text: ArraySlice<UInt8>) -> Bool {
        // A credential starts with `e`, sent as it is or as `%65`.
        guard text.contains(UInt8(ascii: "e")) || text.contains(UInt8(ascii: "%")) else { return false }
        let decoded = percentDecoded(text)
        var start = decoded.startIndex
        while start < decoded.endIndex {
            guard isTokenByte(decoded[start]) else {
                start += 1
                continue
            }
            let end = decoded[start...].firstIndex { !isTokenByte($0) } ?? decoded.endIndex
            let run = decoded[start..<end]
            if looksLikeToken(run) { return true }
            if let object = firstIndex(of: Self.objectStart, in: run), object > start,
                looksLikeToken(decoded[object..<end])
            {
                return true
            }
            start = end
        }
        return false
    }

    private static let objectStart = Array("eyJ".utf8)

    /// A run of token characters is a credential when its first part decodes to `{...}` and a non-empty part
    /// follows the dot.
    private static func looksLikeToken(_ run: ArraySlice<UInt8>) -> Bool {
        // base64 of `{` always begins with `e`: the cheap test that turns most file names away.
        guard run.first == UInt8(ascii: "e"), let dot = run.firstIndex(of: UInt8(ascii: ".")),
            run[(dot + 1)...].contains(where: { $0 != UInt8(ascii: ".") })
        else { return false }
        guard let json = base64Decoded(run[..<dot]) else { return false }
        return json.first == UInt8(ascii: "{") && json.last == UInt8(ascii: "}")
    }

    /// Decodes base64 in either alphabet, padded or not.
    private static func base64Decoded(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var standard = text.compactMap { byte -> UInt8? in
            switch byte {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            case UInt8(ascii: "="): nil
            default: byte
            }
        }
        guard standard.count % 4 != 1 else { return nil }
        while standard.count % 4 != 0 { standard.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(standard)).map { [UInt8]($0) }
    }

    /// The characters of base64, base64url and the dots between a token's parts.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "-"),
            UInt8(ascii: "_"), UInt8(ascii: "="), UInt8(ascii: "."):
            true
        default: false
        }
    }

    private static func firstIndex(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (haystack.startIndex...(haystack.endIndex - needle.count)).first {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    /// Percent-decodes leniently: a `%` not followed by two hex digits stays as it is, so a malformed escape
    /// cannot hide what follows it.
    static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard bytes.contains(UInt8(ascii: "%")) else { return bytes }
        return (PercentEncoding.decodedBytes(bytes, lenient: true) ?? Array(bytes))[...]
    }

    /// The text with each range (merged where they overlap) replaced by `REDACTED`.
    ///
    /// - Parameters:
    ///   - ranges: byte ranges of `bytes`.
    ///   - bytes: the text.
    /// - Returns: the redacted text.
    static func replacing(_ ranges: [Range<Int>], in bytes: [UInt8]) -> String {
        guard !ranges.isEmpty else { return String(decoding: bytes, as: UTF8.self) }
        var merged: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) where !range.isEmpty {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var position = 0
        for range in merged {
            out += bytes[position..<range.lowerBound]
            out += replacement
            position = range.upperBound
        }
        out += bytes[position...]
        return String(decoding: out, as: UTF8.self)
    }
}

extension Journal.Entry: Encodable {
    enum CodingKeys: String, CodingKey {
        case id, clock, method, path, query, route, credential, status, fault, reason
        case expiredAt = "expired_at"
        case faultKinds = "fault_kinds"
        case receivedAt = "received_at"
        case bytesIn = "bytes_in"
        case bytesOut = "bytes_out"
        case durationMilliseconds = "duration_ms"
    }

    /// The entry as `GET /_mockcdn/requests` shows it, at this moment; `route`, `fault`, `reason` and
    /// `expired_at` are written as null when there is none, as the contract shows them.
    func encode(to encoder: any Encoder) throws {
        let state = self.snapshot
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.id, forKey: .id)
        try container.encode((self.receivedAt * 1000).rounded() / 1000, forKey: .receivedAt)
        try container.encode(self.clock, forKey: .clock)
        try container.encode(self.method, forKey: .method)
        try container.encode(self.path, forKey: .path)
        try container.encode(self.query, forKey: .query)
        try container.encode(self.route, forKey: .route)
        try container.encode(state.credential.rawValue, forKey: .credential)
        try container.encode(state.status, forKey: .status)
        try container.encode(state.bytesIn, forKey: .bytesIn)
        try container.encode(state.bytesOut, forKey: .bytesOut)
        try container.encode((state.durationMilliseconds * 1000).rounded() / 1000, forKey: .durationMilliseconds)
        try container.encode(state.fault, forKey: .fault)
        try container.encode(state.reason, forKey: .reason)
        try container.encode(state.expiredAt, forKey: .expiredAt)
        try container.encode(state.faultKinds, forKey: .faultKinds)
    }
}
