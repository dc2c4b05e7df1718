import Foundation
import MockCDNCore
import Synchronization

/// Fault rules a test installs through `/_mockcdn/faults`: match by method, path (prefix, or glob with `*`)
/// and query parameter name; act with a status, a delay, a throttle, a reset or a truncation; stop after
/// `times` hits and fire with `probability`. A rule with `match.scope: deliveries` applies to outgoing webhook
/// deliveries instead (matched on the webhook URL's path and query): a status, a delay, or `drop`.
final class FaultInjector: Sendable {
    struct Match: Codable, Sendable, Equatable {
        var method: String?
        /// A prefix, or a glob when it holds `*` (which then matches any characters, `/` included); at most
        /// `maximumPatternLength` bytes.
        var path: String?
        /// The name of a query parameter the request must carry.
        var query: String?
        /// `requests` (the default: requests MockCDN answers) or `deliveries` (webhook deliveries it makes).
        var scope: String?

        /// Whether the rule applies to webhook deliveries rather than to requests.
        var isDelivery: Bool { self.scope == "deliveries" }
    }

    struct Action: Codable, Sendable, Equatable {
        var status: Int?
        var body: String?
        var delayMilliseconds: Int?
        var throttleBytesPerSecond: Int?
        var resetAfterBytes: Int?
        var truncateAfterBytes: Int?
        /// Deliveries only: the delivery is not sent, and fails as if its target could not be reached.
        var drop: Bool?

        enum CodingKeys: String, CodingKey {
            case status, body, drop
            case delayMilliseconds = "delay_ms"
            case throttleBytesPerSecond = "throttle_bytes_per_sec"
            case resetAfterBytes = "reset_after_bytes"
            case truncateAfterBytes = "truncate_after_bytes"
        }
    }

    /// A rule as `GET /_mockcdn/faults` shows it: its counters as they stood when read.
    struct Rule: Sendable, Encodable {
        let id: String
        let match: Match
        /// Hits left; nil for no limit, written as null.
        var remaining: Int?
        let probability: Double
        let action: Action
        var hits = 0

        enum CodingKeys: String, CodingKey {
            case id, match, remaining, probability, action, hits
        }

        // `remaining` is written as null for no limit, as the contract shows it.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.id, forKey: .id)
            try container.encode(self.match, forKey: .match)
            try container.encode(self.remaining, forKey: .remaining)
            try container.encode(self.probability, forKey: .probability)
            try container.encode(self.action, forKey: .action)
            try container.encode(self.hits, forKey: .hits)
        }
    }

    /// A rule as kept: its pattern compiled when it is added, its counters atomic, so a request matches and
    /// fires it without a lock.
    final class Installed: Sendable {
        let id: String
        let match: Match
        /// `match.method`, upper-cased once.
        let method: String?
        let path: PathPattern?
        let probability: Double
        let action: Action
        /// Whether `times` was given; `remaining` only counts when it was.
        let limited: Bool
        let remaining: Atomic<Int>
        let hits = Atomic<Int>(0)

        init(id: String, match: Match, times: Int?, probability: Double, action: Action) {
            self.id = id
            self.match = match
            self.method = match.method?.uppercased()
            self.path = match.path.map(PathPattern.init)
            self.probability = probability
            self.action = action
            self.limited = times != nil
            self.remaining = Atomic(times ?? 0)
        }

        /// The rule's counters now. Read one after the other, so while requests fire it, `hits` may lag a hit
        /// behind `remaining`.
        var snapshot: Rule {
            Rule(
                id: self.id,
                match: self.match,
                remaining: self.limited ? self.remaining.load(ordering: .relaxed) : nil,
                probability: self.probability,
                action: self.action,
                hits: self.hits.load(ordering: .relaxed)
            )
        }

        /// Whether the rule is out of hits, so it no longer matches.
        var isSpent: Bool { self.limited && self.remaining.load(ordering: .relaxed) == 0 }

        func matches(method: String, path: [UInt8], queryNames: Set<String>, delivery: Bool = false) -> Bool {
            guard self.match.isDelivery == delivery else { return false }
            if let expected = self.method, expected != method { return false }
            if let query = self.match.query, !queryNames.contains(query) { return false }
            return self.path?.matches(path) ?? true
        }

        /// Takes one hit: a compare-and-exchange on `remaining`, so of any number of requests racing for a
        /// rule's last hits, exactly `times` win.
        ///
        /// - Returns: the rule as this hit left it; nil when another request took the last hit first.
        func fire() -> Rule? {
            var remaining: Int?
            if self.limited {
                var current = self.remaining.load(ordering: .relaxed)
                while true {
                    guard current > 0 else { return nil }
                    let (exchanged, original) = self.remaining.compareExchange(
                        expected: current,
                        desired: current - 1,
                        ordering: .relaxed
                    )
                    if exchanged { break }
                    current = original
                }
                remaining = current - 1
            }
            let hits = self.hits.wrappingAdd(1, ordering: .relaxed).newValue
            return Rule(
                id: self.id,
                match: self.match,
                remaining: remaining,
                probability: self.probability,
                action: self.action,
                hits: hits
            )
        }
    }

    /// A `match.path` compiled once: a prefix, or, when it holds `*`, a `Glob` over the whole path.
    struct PathPattern: Sendable {
        enum Kind: Sendable {
            case prefix([UInt8])
            case glob(Glob)
        }

        let kind: Kind

        /// Compiles a pattern: a prefix, or a glob when it holds `*`.
        ///
        /// - Parameter pattern: `match.path`.
        init(_ pattern: String) {
            let bytes = Array(pattern.utf8)
            self.kind = bytes.contains(UInt8(ascii: "*")) ? .glob(Glob(bytes)) : .prefix(bytes)
        }

        func matches(_ path: [UInt8]) -> Bool {
            var steps = 0
            return self.matches(path, steps: &steps)
        }

        /// Matches a path, counting byte comparisons (so a test can show the cost is linear).
        ///
        /// - Parameters:
        ///   - path: the request path's bytes.
        ///   - steps: incremented once per byte comparison.
        /// - Returns: whether the pattern matches the whole path (a prefix: its start).
        func matches(_ path: [UInt8], steps: inout Int) -> Bool {
            switch self.kind {
            case .prefix(let prefix):
                steps += prefix.count
                return path.starts(with: prefix)
            case .glob(let glob):
                return glob.matches(path, steps: &steps)
            }
        }
    }

    /// The most rules kept at once.
    static let maximumRules = 1000
    /// The longest `match.path`, so compiling and matching a rule stay cheap.
    static let maximumPatternLength = 1024

    /// Why a rule was refused.
    struct Invalid: CategorizedError {
        let message: String

        var category: ErrorCategory { .invalidInput }
        var publicMessage: String { self.message }
    }

    /// The rules in order, and the next id. A request copies the array (a reference, O(1)) under the lock and
    /// matches outside it; an add or remove meanwhile writes a new array and leaves that copy as it was.
    private let state = Mutex<(rules: [Installed], next: Int)>(([], 1))
    /// Read without the lock on every request, so the common case (no rules) costs nothing.
    private let ruleCount = Atomic<Int>(0)

    /// Adds a rule after checking it.
    ///
    /// - Returns: the rule's id (`f1`, `f2`, ...).
    /// - Throws: `Invalid` naming the bad field.
    func add(match: Match, times: Int?, probability: Double?, action: Action) throws(Invalid) -> String {
        if let times, times < 1 { throw Invalid(message: "times must be at least 1 (omit it for no limit)") }
        let probability = probability ?? 1
        guard (0...1).contains(probability) else { throw Invalid(message: "probability must be 0...1") }
        if let status = action.status, !(200...599).contains(status) {
            throw Invalid(message: "action.status must be 200...599")
        }
        if let delay = action.delayMilliseconds, !(0...60_000).contains(delay) {
            throw Invalid(message: "action.delay_ms must be 0...60000")
        }
        if let rate = action.throttleBytesPerSecond, rate < 0 {
            throw Invalid(message: "action.throttle_bytes_per_sec must not be negative")
        }
        for (name, value) in [
            ("reset_after_bytes", action.resetAfterBytes), ("truncate_after_bytes", action.truncateAfterBytes),
        ]
        where (value ?? 0) < 0 {
            throw Invalid(message: "action.\(name) must not be negative")
        }
        if (action.body?.utf8.count ?? 0) > 64 * 1024 { throw Invalid(message: "action.body must be at most 64 KiB") }
        if let method = match.method, method.isEmpty || method.count > 16 {
            throw Invalid(message: "match.method must be an HTTP method")
        }
        if let path = match.path, path.utf8.count > Self.maximumPatternLength {
            throw Invalid(message: "match.path must be at most \(Self.maximumPatternLength) bytes")
        }
        if let scope = match.scope, scope != "requests", scope != "deliveries" {
            throw Invalid(message: "match.scope must be requests or deliveries")
        }
        if match.isDelivery {
            guard action.body == nil, action.throttleBytesPerSecond == nil, action.resetAfterBytes == nil,
                action.truncateAfterBytes == nil
            else {
                throw Invalid(message: "a deliveries rule acts with status, delay_ms or drop only")
            }
        } else if action.drop != nil {
            throw Invalid(message: "action.drop needs match.scope deliveries")
        }
        return try self.state.withLock { state throws(Invalid) in
            guard state.rules.count < Self.maximumRules else {
                throw Invalid(message: "at most \(Self.maximumRules) fault rules; DELETE /_mockcdn/faults first")
            }
            let id = "f\(state.next)"
            state.next += 1
            state.rules.append(
                Installed(id: id, match: match, times: times, probability: probability, action: action)
            )
            self.ruleCount.store(state.rules.count, ordering: .relaxed)
            return id
        }
    }

    var rules: [Rule] { self.state.withLock { $0.rules }.map(\.snapshot) }

    /// Whether any rule is installed, spent or not: a request answered without `fire` (the fast reads) must
    /// find none.
    var isArmed: Bool { self.ruleCount.load(ordering: .relaxed) > 0 }

    @discardableResult
    func remove(id: String) -> Bool {
        self.state.withLock { state in
            let before = state.rules.count
            state.rules.removeAll { $0.id == id }
            self.ruleCount.store(state.rules.count, ordering: .relaxed)
            return state.rules.count != before
        }
    }

    func clear() {
        self.state.withLock { state in
            state.rules = []
            self.ruleCount.store(0, ordering: .relaxed)
        }
    }

    /// The first rule that matches and fires, counted as a hit; rules out of hits no longer match.
    ///
    /// Matching runs on the rules as they stood when the request arrived, outside the lock, so one request's
    /// matching never holds up another's, nor an add; a rule removed meanwhile may still fire for it.
    ///
    /// - Parameters:
    ///   - method: the request method.
    ///   - path: the request path, as sent.
    ///   - queryNames: the names of the query parameters, evaluated only when there are rules.
    /// - Returns: the rule as this hit left it, or nil when none fired.
    func fire(
        method: String,
        path: String,
        queryNames: @autoclosure () -> Set<String>,
        delivery: Bool = false
    ) -> Rule? {
        guard self.ruleCount.load(ordering: .relaxed) > 0 else { return nil }
        let queryNames = queryNames()
        let rules = self.state.withLock { $0.rules }
        let path = Array(path.utf8)
        for rule in rules {
            guard !rule.isSpent, rule.matches(method: method, path: path, queryNames: queryNames, delivery: delivery)
            else { continue }
            guard rule.probability >= 1 || Double.random(in: 0..<1) < rule.probability else { continue }
            if let fired = rule.fire() { return fired }
        }
        return nil
    }

    /// The first `deliveries` rule that matches and fires on a webhook delivery to `url`, as the fault the
    /// delivery takes.
    ///
    /// - Parameter url: the webhook's URL; its path and query names are matched, the method is POST.
    /// - Returns: the fault, or nil when none fired.
    func fire(delivery url: URL) -> DeliveryFault? {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? url.path
        let names = Set((components?.queryItems ?? []).map(\.name))
        guard let rule = self.fire(method: "POST", path: path.isEmpty ? "/" : path, queryNames: names, delivery: true)
        else { return nil }
        return DeliveryFault(
            rule: rule.id,
            status: rule.action.status,
            delayMilliseconds: rule.action.delayMilliseconds,
            drop: rule.action.drop ?? false
        )
    }
}
