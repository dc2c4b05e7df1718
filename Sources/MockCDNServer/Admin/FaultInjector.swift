import Foundation
import Synchronization

/// Fault rules a test installs through `/_mockcdn/faults`: match by method, path (prefix, or glob with `*`)
/// and query parameter name; act with a status, a delay, a throttle, a reset or a truncation; stop after
/// `times` hits and fire with `probability`.
final class FaultInjector: Sendable {
    struct Match: Codable, Sendable, Equatable {
        var method: String?
        /// A prefix, or a glob when it holds `*` (which then matches any characters, `/` included).
        var path: String?
        /// The name of a query parameter the request must carry.
        var query: String?
    }

    struct Action: Codable, Sendable, Equatable {
        var status: Int?
        var body: String?
        var delayMilliseconds: Int?
        var throttleBytesPerSecond: Int?
        var resetAfterBytes: Int?
        var truncateAfterBytes: Int?

        enum CodingKeys: String, CodingKey {
            case status, body
            case delayMilliseconds = "delay_ms"
            case throttleBytesPerSecond = "throttle_bytes_per_sec"
            case resetAfterBytes = "reset_after_bytes"
            case truncateAfterBytes = "truncate_after_bytes"
        }
    }

    struct Rule: Sendable {
        let id: String
        let match: Match
        /// Hits left; nil for no limit.
        var remaining: Int?
        let probability: Double
        let action: Action
        var hits = 0
    }

    /// The most rules kept at once.
    static let maximumRules = 1000

    /// Why a rule was refused.
    struct Invalid: Error {
        let message: String
    }

    private let state = Mutex<(rules: [Rule], next: Int)>(([], 1))
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
        return try self.state.withLock { state throws(Invalid) in
            guard state.rules.count < Self.maximumRules else {
                throw Invalid(message: "at most \(Self.maximumRules) fault rules; DELETE /_mockcdn/faults first")
            }
            let id = "f\(state.next)"
            state.next += 1
            state.rules.append(
                Rule(id: id, match: match, remaining: times, probability: probability, action: action)
            )
            self.ruleCount.store(state.rules.count, ordering: .relaxed)
            return id
        }
    }

    var rules: [Rule] { self.state.withLock { $0.rules } }

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
    func fire(method: String, path: String, queryNames: @autoclosure () -> Set<String>) -> Rule? {
        guard self.ruleCount.load(ordering: .relaxed) > 0 else { return nil }
        let queryNames = queryNames()
        return self.state.withLock { state in
            for index in state.rules.indices {
                let rule = state.rules[index]
                guard rule.remaining != 0, Self.matches(rule.match, method: method, path: path, queryNames: queryNames)
                else { continue }
                guard rule.probability >= 1 || Double.random(in: 0..<1) < rule.probability else { continue }
                state.rules[index].hits += 1
                if let remaining = rule.remaining { state.rules[index].remaining = remaining - 1 }
                return state.rules[index]
            }
            return nil
        }
    }

    static func matches(_ match: Match, method: String, path: String, queryNames: Set<String>) -> Bool {
        if let expected = match.method, expected.uppercased() != method { return false }
        if let query = match.query, !queryNames.contains(query) { return false }
        guard let pattern = match.path else { return true }
        return pattern.contains("*") ? glob(pattern, matches: path) : path.hasPrefix(pattern)
    }

    /// `*` matches any run of characters; everything else matches itself.
    static func glob(_ pattern: String, matches text: String) -> Bool {
        let pattern = Array(pattern.utf8)
        let text = Array(text.utf8)
        var p = 0
        var t = 0
        var star = -1
        var resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] != UInt8(ascii: "*"), pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == UInt8(ascii: "*") {
                star = p
                resume = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }
}
