import Foundation
import Synchronization
import Testing

@testable import MockCDNServer

@Suite("Fault rules: linear glob matching, lock-free firing")
struct FaultMatchingTests {
    static func matches(_ pattern: String, _ path: String) -> Bool {
        FaultInjector.PathPattern(pattern).matches(Array(path.utf8))
    }

    /// The definition of a `*` glob, by dynamic programming: O(pattern × text), for checking the fast matcher.
    static func reference(_ pattern: [UInt8], _ text: [UInt8]) -> Bool {
        // row[j]: whether the pattern read so far matches text[..<j].
        var row = [true] + [Bool](repeating: false, count: text.count)
        for byte in pattern {
            var next = [Bool](repeating: false, count: text.count + 1)
            next[0] = byte == UInt8(ascii: "*") && row[0]
            for (offset, character) in text.enumerated() {
                next[offset + 1] =
                    byte == UInt8(ascii: "*") ? row[offset + 1] || next[offset] : row[offset] && character == byte
            }
            row = next
        }
        return row[text.count]
    }

    @Test(
        "a pattern without `*` is a prefix; `*` matches any run of characters, `/` and nothing included",
        arguments: [
            ("/demo/", "/demo/x.jpg", true), ("/demo/", "/dem", false), ("/demo", "/demonstration", true),
            ("", "/anything", true), ("/a/b", "/a/bc", true), ("/a/b", "/A/b", false),
            ("*", "/anything", true), ("*", "", true), ("**", "/x", true), ("***", "", true),
            ("/demo/*", "/demo/", true), ("/demo/*", "/demo", false), ("/demo/*", "/demo/a/b.jpg", true),
            ("*.jpg", "/a/b.jpg", true), ("*.jpg", "/a/b.jpg.png", false), ("*.jpg", ".jpg", true),
            ("/a/*/c", "/a/b/c", true), ("/a/*/c", "/a/b/x/c", true), ("/a/*/c", "/a//c", true),
            ("/a/*/c", "/a/c", false), ("/a/**/c", "/a/c", false), ("/a**c", "/ac", true),
            ("ab*ba", "aba", false), ("ab*ba", "abba", true), ("a*a", "a", false), ("a*a", "aa", true),
            ("a*a*a", "aaa", true), ("a*a*a", "aa", false), ("*a*b*", "xaxbx", true), ("*a*b*", "xbxax", false),
            ("*abab*", "xabaabab", true), ("*aab*", "aaab", true), ("*abcabd*", "abcabcabd", true),
            ("*abcabd*", "abcabcab", false), ("*x*x*", "x", false), ("*/v2/*", "/demo/v2/a.jpg", true),
            ("/é*", "/é/x", true), ("/e*", "/é", false), ("/demo/*/thumb*", "/demo/a/b/thumb.png", true),
        ]
    )
    func semantics(_ pattern: String, _ path: String, _ expected: Bool) {
        #expect(Self.matches(pattern, path) == expected)
        if pattern.contains("*") { #expect(Self.reference(Array(pattern.utf8), Array(path.utf8)) == expected) }
    }

    @Test("the matcher agrees with the glob's definition on every short pattern over a, b and * and text over a, b")
    func agreesWithDefinition() {
        /// Every string over `alphabet` up to `length` long.
        func strings(_ alphabet: String, upTo length: Int) -> [[UInt8]] {
            var all: [[UInt8]] = [[]]
            var last: [[UInt8]] = [[]]
            for _ in 0..<length {
                last = last.flatMap { prefix in alphabet.utf8.map { prefix + [$0] } }
                all += last
            }
            return all
        }
        let texts = strings("ab", upTo: 7)
        var checked = 0
        var disagreements: [String] = []
        for pattern in strings("ab*", upTo: 6) where pattern.contains(UInt8(ascii: "*")) {
            let compiled = FaultInjector.PathPattern(String(decoding: pattern, as: UTF8.self))
            for text in texts where compiled.matches(text) != Self.reference(pattern, text) {
                disagreements.append(
                    String(decoding: pattern, as: UTF8.self) + " ~ " + String(decoding: text, as: UTF8.self)
                )
            }
            checked += texts.count
        }
        #expect(disagreements.isEmpty)
        #expect(checked > 100_000)
    }

    @Test(
        "a pathological glob costs at most two comparisons per path byte plus the pattern, whether or not it matches",
        arguments: [
            // A long literal after a star, almost found at every offset: the backtracking matcher compared about
            // path × literal bytes (a million here, per rule).
            ("*" + String(repeating: "a", count: 1000) + "b*", String(repeating: "a", count: 2000), false),
            ("*" + String(repeating: "a", count: 1000) + "b", String(repeating: "a", count: 2000) + "c", false),
            ("*" + String(repeating: "a", count: 1000) + "b*", String(repeating: "a", count: 2000) + "b", true),
            // `*a*a...*a` then `b`, the example.
            (String(repeating: "*a", count: 200) + "b", String(repeating: "a", count: 2000), false),
            (String(repeating: "*a", count: 200) + "b", String(repeating: "a", count: 2000) + "b", true),
            // A middle literal that is almost everywhere but never whole: each search scans the path.
            (
                "*" + String(repeating: "a*", count: 100) + String(repeating: "a", count: 9) + "b*b",
                String(repeating: "a", count: 2000) + "b", false
            ),
            ("/" + String(repeating: "*aaaaaaaab", count: 100), "/" + String(repeating: "a", count: 2000) + "b", false),
        ]
    )
    func linearCost(_ pattern: String, _ path: String, _ expected: Bool) {
        let compiled = FaultInjector.PathPattern(pattern)
        var steps = 0
        #expect(compiled.matches(Array(path.utf8), steps: &steps) == expected)
        #expect(steps <= 2 * path.utf8.count + pattern.utf8.count, "\(steps) comparisons")
    }

    @Test("a thousand pathological rules against a long path: every rule is looked at, none fires")
    func thousandRules() throws {
        let faults = FaultInjector()
        let patterns = [String(repeating: "*a", count: 200) + "b", "*" + String(repeating: "a", count: 1000) + "b*"]
        for index in 0..<FaultInjector.maximumRules {
            _ = try faults.add(
                match: .init(path: patterns[index % 2]),
                times: nil,
                probability: nil,
                action: .init(status: 503)
            )
        }
        let path = String(repeating: "a", count: 2000)
        #expect(faults.fire(method: "GET", path: path, queryNames: []) == nil)
        #expect(faults.fire(method: "GET", path: path + "b", queryNames: [])?.id == "f1")
        #expect(faults.rules.map(\.hits).reduce(0, +) == 1)
    }

    @Test("a pattern is at most 1024 bytes; a longer one is refused naming match.path")
    func patternLength() throws {
        let faults = FaultInjector()
        _ = try faults.add(
            match: .init(path: String(repeating: "*", count: 1024)),
            times: nil,
            probability: nil,
            action: .init()
        )
        let error = #expect(throws: FaultInjector.Invalid.self) {
            try faults.add(
                match: .init(path: String(repeating: "a", count: 1025)),
                times: nil,
                probability: nil,
                action: .init()
            )
        }
        #expect(error?.message.contains("match.path") == true)
        #expect(faults.rules.count == 1)
    }

    @Test("`times: 3` fires exactly three times when a hundred requests race for it", arguments: 0..<20)
    func timesUnderConcurrency(_ round: Int) async throws {
        let faults = FaultInjector()
        let id = try faults.add(match: .init(path: "/demo/*"), times: 3, probability: nil, action: .init(status: 503))
        let fired = await withTaskGroup(of: FaultInjector.Rule?.self) { group in
            for _ in 0..<100 {
                group.addTask { faults.fire(method: "GET", path: "/demo/a.jpg", queryNames: []) }
            }
            var fired: [FaultInjector.Rule] = []
            for await rule in group { if let rule { fired.append(rule) } }
            return fired
        }
        #expect(fired.count == 3)
        #expect(fired.allSatisfy { $0.id == id && $0.action.status == 503 })
        #expect(Set(fired.compactMap(\.remaining)) == [0, 1, 2])
        #expect(Set(fired.map(\.hits)) == [1, 2, 3])
        let rule = try #require(faults.rules.first)
        #expect(rule.remaining == 0 && rule.hits == 3)
    }

    @Test("a rule's limit holds when threads race on it in tight loops: no hit lost, none taken twice")
    func timesUnderContention() {
        let times = 2_000_000
        let rule = FaultInjector.Installed(id: "f1", match: .init(), times: times, probability: 1, action: .init())
        let fired = Atomic<Int>(0)
        // Real threads on every core, racing on the rule alone (no snapshot lock to stagger them), so a
        // read-then-write instead of a compare-and-exchange loses updates and fires more than `times`.
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            var mine = 0
            for _ in 0..<(times / 2) where rule.fire() != nil { mine += 1 }
            fired.add(mine, ordering: .relaxed)
        }
        #expect(fired.load(ordering: .relaxed) == times)
        #expect(rule.snapshot.remaining == 0 && rule.snapshot.hits == times)
        #expect(rule.fire() == nil && rule.isSpent)
    }

    @Test("rules fire in order by method, path and query name; a spent rule lets the next one fire")
    func order() throws {
        let faults = FaultInjector()
        let first = try faults.add(
            match: .init(method: "get", path: "/demo/*.jpg", query: "w"),
            times: 1,
            probability: nil,
            action: .init(status: 500)
        )
        let second = try faults.add(
            match: .init(path: "/demo/"),
            times: nil,
            probability: nil,
            action: .init(status: 503)
        )
        #expect(faults.fire(method: "POST", path: "/demo/a.jpg", queryNames: ["w"])?.id == second)
        #expect(faults.fire(method: "GET", path: "/demo/a.jpg", queryNames: ["h"])?.id == second)
        #expect(faults.fire(method: "GET", path: "/demo/a.png", queryNames: ["w"])?.id == second)
        let hit = faults.fire(method: "GET", path: "/demo/a.jpg", queryNames: ["w"])
        #expect(hit?.id == first && hit?.remaining == 0 && hit?.hits == 1)
        #expect(faults.fire(method: "GET", path: "/demo/a.jpg", queryNames: ["w"])?.id == second)
        #expect(faults.rules.map(\.hits) == [1, 4])
        #expect(faults.rules.map(\.remaining) == [0, nil])
        #expect(faults.remove(id: first))
        #expect(faults.fire(method: "GET", path: "/elsewhere", queryNames: []) == nil)
        faults.clear()
        #expect(faults.fire(method: "GET", path: "/demo/a.jpg", queryNames: []) == nil)
    }
}
