import Foundation
import Logging
import MockCDNTesting
import Testing

@testable import MockCDNServer

@Suite("Verify: path globs, counts, order, near-miss ranking and words")
struct VerificationTests {
    @Test(
        "`*` matches within one segment, a `**` segment any number of whole segments",
        arguments: [
            ("/demo/fixtures/sample.jpg", "/demo/fixtures/sample.jpg", true),
            ("/demo/*/sample.jpg", "/demo/fixtures/sample.jpg", true),
            ("/demo/*.jpg", "/demo/fixtures/sample.jpg", false),
            ("/demo/*", "/demo/fixtures/sample.jpg", false),
            ("/demo/**", "/demo/fixtures/sample.jpg", true),
            ("/demo/**", "/demo", true),
            ("/demo/**", "/demo/", true),
            ("/demo/**", "/other/a", false),
            ("/demo/**/*.jpg", "/demo/a.jpg", true),
            ("/demo/**/*.jpg", "/demo/a/b/c.jpg", true),
            ("/demo/**/*.jpg", "/demo/a/b/c.png", false),
            ("/**/sample.*", "/demo/fixtures/sample.png", true),
            ("/**/b/**/d", "/a/b/c/d", true),
            ("/**/b/**/d", "/a/c/d", false),
            ("/demo/s*e.jpg", "/demo/sample.jpg", true),
            ("/demo/s*e.jpg", "/demo/s/e.jpg", false),
            ("/demo/**x", "/demo/ax", true),
            ("/demo/**x", "/demo/a/x", false),
            ("/", "/", true),
            ("/", "/demo", false),
        ]
    )
    func globs(pattern: String, path: String, matches: Bool) {
        #expect(PathGlob(pattern).matches(path) == matches, "\(pattern) on \(path)")
    }

    @Test("many `**` segments over a deep path stay cheap (no backtracking)")
    func deepGlob() {
        let pattern = PathGlob(String(repeating: "/**", count: 200) + "/x")
        let path = String(repeating: "/a", count: 1000)
        #expect(!pattern.matches(path))
        #expect(pattern.matches(path + "/x"))
    }

    @Test(
        "a span in its two largest units",
        arguments: [
            (0, "0 s"), (45, "45 s"), (60, "1 min"), (180, "3 min"), (200, "3 min 20 s"), (3_600, "1 h"),
            (7_500, "2 h 5 min"), (86_400, "1 d"), (97_200, "1 d 3 h"), (1_209_600, "14 d"),
        ] as [(Int64, String)]
    )
    func durations(seconds: Int64, words: String) {
        #expect(NearMiss.duration(seconds) == words)
    }

    @Test(
        "counts in words",
        arguments: [
            (JournalExpectation.Count.atLeastOnce, "at least 1 matching request"),
            (JournalExpectation.Count(min: 2, max: nil), "at least 2 matching requests"),
            (JournalExpectation.Count(min: 1, max: 1), "exactly 1 matching request"),
            (JournalExpectation.Count(min: 0, max: 0), "exactly 0 matching requests"),
            (JournalExpectation.Count(min: 0, max: 1), "at most 1 matching request"),
            (JournalExpectation.Count(min: 1, max: 3), "between 1 and 3 matching requests"),
        ]
    )
    func countWords(count: JournalExpectation.Count, words: String) {
        #expect(count.requests == words)
    }

    static func record(
        _ number: Int,
        _ method: String = "GET",
        path: String,
        credential: CredentialSource = .fatHeader,
        status: Int = 200,
        clock: Int64 = 1_000,
        reason: String? = nil,
        expiredAt: Int64? = nil
    ) -> JournalRecord {
        JournalRecord(
            id: "r\(number)",
            method: method,
            path: path,
            credential: credential,
            status: status,
            reason: reason,
            clock: clock,
            expiredAt: expiredAt
        )
    }

    static func decode(_ json: String) throws -> VerifyDocument {
        try JSONDecoder().decode(VerifyDocument.self, from: Data(json.utf8))
    }

    @Test("a document decodes with its defaults: at least once, unordered, every entry")
    func defaults() throws {
        let document = try Self.decode(#"{"expectations":[{"method":"get","status":"4XX"}]}"#)
        #expect(document.ordered == false && document.since == nil)
        let expectation = try #require(document.expectations.first)
        #expect(expectation.method == "GET")
        #expect(expectation.status == .inClass(4))
        #expect(expectation.count == .atLeastOnce)
        #expect(expectation.fields == [.method, .status])
        #expect(expectation.summary == "method GET, status 4xx, count at least 1")
    }

    @Test("a bad member is refused by its coding path")
    func refusals() {
        #expect(throws: FieldRefusal(field: "expectations[2].count", message: "min (2) is more than max (1)")) {
            try Self.decode(#"{"expectations":[{},{},{"count":{"min":2,"max":1}}]}"#)
        }
        #expect(throws: FieldRefusal(field: "since", message: "must be a journal id such as r12")) {
            try Self.decode(#"{"expectations":[{}],"since":"r0"}"#)
        }
    }

    @Test("unordered, each expectation counts over every entry; ordered, after the previous one's last match")
    func order() throws {
        let records = [
            Self.record(1, path: "/a"), Self.record(2, path: "/b"), Self.record(3, path: "/a"),
        ]
        let document = try Self.decode(#"{"expectations":[{"path":"/a"},{"path":"/b"}]}"#)
        let unordered = try Verification(expectations: document.expectations, ordered: false).judge(records)
        #expect(unordered.map(\.matched) == [["r1", "r3"], ["r2"]])
        #expect(unordered.allSatisfy { $0.isMet })
        let ordered = try Verification(expectations: document.expectations, ordered: true).judge(records)
        #expect(ordered.map(\.matched) == [["r1", "r3"], []])
        #expect(
            ordered[1].problem
                == "expected at least 1 matching request after r3 (expectations[0]'s last match), found 0"
        )
        let miss = try #require(ordered[1].nearMisses.first)
        #expect(miss.record.id == "r2")
        #expect(
            miss.explanation == "path matched, but it came before r3, expectations[0]'s last match, in an ordered list"
        )
        // An expectation that matches nothing leaves the next one's window where it was.
        let skipping = try Self.decode(
            #"{"expectations":[{"path":"/a","count":{"max":5}},{"path":"/none","count":0},{"path":"/b"}]}"#
        )
        let judged = try Verification(expectations: skipping.expectations, ordered: true).judge(records)
        #expect(judged.map(\.isMet) == [true, true, false])
    }

    @Test("near misses rank by fields matched, newest first on a tie, at most three")
    func ranking() throws {
        let records = [
            Self.record(1, "POST", path: "/demo/x", status: 201),
            Self.record(2, "GET", path: "/demo/a.jpg", credential: .fatQuery),
            Self.record(3, "GET", path: "/other/a.jpg", credential: .fatQuery, status: 404),
            Self.record(4, "GET", path: "/demo/b.jpg", credential: .fatQuery),
            Self.record(
                5,
                "GET",
                path: "/demo/c.jpg",
                credential: .none,
                status: 403,
                reason: "AccessDenied: Signature does not match"
            ),
            Self.record(6, "PUT", path: "/nowhere", credential: .headerSigV4, status: 500),
        ]
        let document = try Self.decode(
            #"{"expectations":[{"method":"GET","path":"/demo/*.jpg","credential":"fat-header","status":200}]}"#
        )
        let outcome = try #require(
            try Verification(expectations: document.expectations, ordered: false).judge(records).first
        )
        #expect(outcome.nearMisses.map(\.record.id) == ["r4", "r2", "r5"])
        #expect(outcome.nearMisses[0].matched == [.method, .path, .status])
        #expect(
            outcome.nearMisses[2].explanation
                == "method and path matched, but credential `none` where `fat-header` was expected; status 403 where "
                + "200 was expected (AccessDenied: Signature does not match)"
        )
    }

    @Test("an expired credential's refusal says how long before the entry's clock it expired")
    func expiry() throws {
        let records = [
            Self.record(
                1,
                path: "/demo/a.jpg",
                credential: .none,
                status: 403,
                clock: 10_000,
                reason: "AccessDenied: Request has expired",
                expiredAt: 9_820
            )
        ]
        let status = try Self.decode(#"{"expectations":[{"path":"/demo/a.jpg","status":200}]}"#)
        let byStatus = try Verification(expectations: status.expectations, ordered: false).judge(records)
        #expect(
            byStatus[0].nearMisses.first?.explanation
                == "path matched, but status 403 where 200 was expected: the credential expired 3 min ago by the MockCDN clock"
        )
        // Without a status to explain, the credential's difference carries the account.
        let credential = try Self.decode(#"{"expectations":[{"path":"/demo/a.jpg","credential":"presigned"}]}"#)
        let byCredential = try Verification(expectations: credential.expectations, ordered: false).judge(records)
        #expect(
            byCredential[0].nearMisses.first?.explanation
                == "path matched, but credential `none` where `presigned` was expected: the credential expired 3 min "
                + "ago by the MockCDN clock"
        )
    }

    @Test("the plain-text report: a summary line, each unmet expectation, its closest entries")
    func report() throws {
        let records = [Self.record(1, path: "/demo/a.jpg", credential: .fatQuery)]
        let document = try Self.decode(
            #"{"expectations":[{"path":"/demo/*.jpg"},{"credential":"fat-header"},{"path":"/x","count":{"max":0}}]}"#
        )
        let report = VerificationReport(
            outcomes: try Verification(expectations: document.expectations, ordered: false).judge(records),
            ordered: false,
            since: nil
        )
        #expect(!report.met)
        #expect(
            report.text == """
                MockCDN verify: 1 of 3 expectations not met
                expectations[1] (credential fat-header, count at least 1): expected at least 1 matching request, found 0
                  no journal entry came close
                """
        )
    }

    // MARK: - Cost

    /// A byte glob by backtracking: the reference the linear matchers are held to.
    static func slowGlob(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        if first == UInt8(ascii: "*") {
            return (text.startIndex...text.endIndex).contains { Self.slowGlob(pattern.dropFirst(), text[$0...]) }
        }
        return text.first == first && Self.slowGlob(pattern.dropFirst(), text.dropFirst())
    }

    /// A path glob by backtracking over segments.
    static func slowPath(_ pattern: ArraySlice<[UInt8]>, _ path: ArraySlice<[UInt8]>) -> Bool {
        guard let first = pattern.first else { return path.isEmpty }
        if first == Array("**".utf8) {
            return (path.startIndex...path.endIndex).contains { Self.slowPath(pattern.dropFirst(), path[$0...]) }
        }
        guard let segment = path.first else { return false }
        return Self.slowGlob(first[...], segment[...]) && Self.slowPath(pattern.dropFirst(), path.dropFirst())
    }

    @Test("the linear path glob agrees with backtracking on 20,000 random patterns and paths")
    func agreesWithBacktracking() {
        let patternSegments = ["**", "*", "a", "b", "a*", "*a", "a*b", "*b*", "", "ab", "**a"]
        let pathSegments = ["a", "b", "ab", "ba", "", "aab", "bab"]
        // A fixed linear congruential sequence: the same cases on every run.
        var seed: UInt64 = 0x5DEE_CE66
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        var disagreements: [String] = []
        for _ in 0..<20_000 {
            let pattern = (0..<(1 + next(7))).map { _ in patternSegments[next(patternSegments.count)] }
            let path = (0..<(1 + next(8))).map { _ in pathSegments[next(pathSegments.count)] }
            let patternText = "/" + pattern.joined(separator: "/")
            let pathText = "/" + path.joined(separator: "/")
            let expected = Self.slowPath(
                ([""] + pattern).map { Array($0.utf8) }[...],
                ([""] + path).map { Array($0.utf8) }[...]
            )
            if PathGlob(patternText).matches(pathText) != expected {
                disagreements.append("\(patternText) on \(pathText)")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }

    @Test("a run of more than 64 segments between two `**` is found at its leftmost place, or not at all")
    func wideRuns() {
        let run = "/**" + String(repeating: "/a*", count: 69) + "/b/**"
        let cases: [(String, Bool)] = [
            (String(repeating: "/a", count: 69) + "/b", true),
            (String(repeating: "/a", count: 68) + "/b", false),
            ("/x" + String(repeating: "/ab", count: 100) + "/b/c", true),
            (String(repeating: "/a", count: 69) + "/c" + String(repeating: "/a", count: 69) + "/b/d", true),
            (String(repeating: "/a", count: 69) + "/c" + String(repeating: "/a", count: 68) + "/b/d", false),
            (String(repeating: "/a", count: 200), false),
        ]
        for (path, expected) in cases {
            let slow = Self.slowPath(
                run.split(separator: "/", omittingEmptySubsequences: false).map { Array($0.utf8) }[...],
                path.split(separator: "/", omittingEmptySubsequences: false).map { Array($0.utf8) }[...]
            )
            #expect(slow == expected, "the reference on \(path.utf8.count) bytes")
            #expect(PathGlob(run).matches(path) == expected, "\(path.utf8.count) bytes")
        }
    }

    /// 1,023-byte patterns of the kinds that cost the old matcher its pattern's segments times the path's, and a
    /// 2,047-byte path of 1,024 segments (the journal keeps 2,048 bytes of a path).
    static let costlyPatterns: [(name: String, pattern: String)] = [
        ("`**` repeated", String(repeating: "/**", count: 341)),
        ("`**` then a segment, repeated", "/**" + String(repeating: "/a/**", count: 204)),
        ("a run of 508 segments between two `**`", "/**" + String(repeating: "/*", count: 507) + "/x/**"),
        ("a run of 60 segments between two `**`", "/**" + String(repeating: "/*", count: 59) + "/x/**"),
        ("`*` in every segment", String(repeating: "/*", count: 511) + "/"),
    ]
    static let costlyPaths = [String(repeating: "/a", count: 1023) + "/", String(repeating: "/b", count: 1023) + "/"]

    @Test("a match costs about the path's length, whatever the pattern's `**` segments", arguments: costlyPatterns)
    func linearCost(name: String, pattern: String) {
        let glob = PathGlob(pattern)
        for path in Self.costlyPaths {
            var steps = 0
            _ = glob.matches(PathGlob.Path(path), steps: &steps)
            // The old matcher took more than 300,000 steps (pattern segments times path segments) on these; a
            // shift-and scan over a run of 508 globs counts about 17 steps per segment of 2 bytes.
            #expect(steps <= 12 * path.utf8.count, "\(name): \(steps) steps on \(path.utf8.count) bytes")
        }
    }

    @Test("a judgement over its step limit is refused, naming the bound")
    func stepLimit() throws {
        let records = (1...100).map { Self.record($0, path: String(repeating: "/a", count: 500)) }
        let document = try Self.decode(#"{"expectations":[{"path":"/**/b/**"},{"path":"/**/c/**"}]}"#)
        #expect(throws: VerifyCostRefusal(limit: 50_000, expectations: 2, entries: 100)) {
            try Verification(expectations: document.expectations, ordered: false, stepLimit: 50_000).judge(records)
        }
        #expect(
            VerifyCostRefusal(limit: 300_000_000, expectations: 63, entries: 1000).publicMessage
                == "verify takes at most 300,000,000 steps (a step: a byte of a path or query compared, a path "
                + "segment visited, an entry judged) and these 63 expectations over 1,000 journal entries take "
                + "more; judge fewer entries with since, or send fewer expectations or simpler path globs"
        )
        // The same document within the limit is judged: each path is read about once per expectation.
        let outcomes = try Verification(expectations: document.expectations, ordered: false, stepLimit: 1_000_000)
            .judge(records)
        #expect(outcomes.map(\.isMet) == [false, false])
    }

    @Test("`query` is found byte for byte, `*` and all")
    func queryBytes() throws {
        let records = [
            JournalRecord(id: "r1", method: "GET", path: "/a", query: "x=a*b", status: 200),
            JournalRecord(id: "r2", method: "GET", path: "/a", query: "x=aab", status: 200),
        ]
        let document = try Self.decode(#"{"expectations":[{"query":"a*b"},{"query":"=aa"}]}"#)
        let outcomes = try Verification(expectations: document.expectations, ordered: false).judge(records)
        #expect(outcomes.map(\.matched) == [["r1"], ["r2"]])
    }

    @Test("a verify over its step limit is 400 naming the bound, and the journal is as it was")
    func stepLimitOverHTTP() async throws {
        var configuration = ServerConfiguration(logLevel: .warning)
        configuration.fixturesDirectory = nil
        configuration.verifyStepLimit = 100_000
        try await MockCDNTestServer.withRunning(configuration) { server in
            // 30 refused reads of an 805-byte path of 402 segments: about 24,000 steps to cut them up, and about
            // 1,200 for each expectation to scan one for its `b`.
            let path = "/demo" + String(repeating: "/a", count: 400)
            for _ in 0..<30 { _ = try await HTTP.get(server.url(path)) }
            let journal = try await HTTP.get(server.url("/_mockcdn/requests")).json["requests"] as? [[String: Any]]
            try #require(journal?.count == 30)
            let expectation = #"{"path":"/**/b/**"}"#
            let five = try await HTTP.send(
                "POST",
                server.url("/_mockcdn/verify"),
                body: Data(
                    #"{"expectations":[\#(Array(repeating: expectation, count: 5).joined(separator: ","))]}"#.utf8
                )
            )
            #expect(five.status == 400)
            #expect(
                five.json["error"] as? [String: String] == [
                    "message": "verify takes at most 100,000 steps (a step: a byte of a path or query compared, a "
                        + "path segment visited, an entry judged) and these 5 expectations over 30 journal entries "
                        + "take more; judge fewer entries with since, or send fewer expectations or simpler path globs"
                ]
            )
            // One expectation fits: judged, unmet (no `b` anywhere), with its near misses.
            let one = try await HTTP.send(
                "POST",
                server.url("/_mockcdn/verify"),
                body: Data(#"{"expectations":[\#(expectation)]}"#.utf8)
            )
            #expect(one.status == 409)
            let after = try await HTTP.get(server.url("/_mockcdn/requests")).json["requests"] as? [[String: Any]]
            #expect(after?.count == 30)
        }
    }
}
