import Foundation
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
        let unordered = Verification(expectations: document.expectations, ordered: false).judge(records)
        #expect(unordered.map(\.matched) == [["r1", "r3"], ["r2"]])
        #expect(unordered.allSatisfy { $0.isMet })
        let ordered = Verification(expectations: document.expectations, ordered: true).judge(records)
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
        let judged = Verification(expectations: skipping.expectations, ordered: true).judge(records)
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
            Self.record(6, "PUT", path: "/nowhere", credential: .s3HeaderSigV4, status: 500),
        ]
        let document = try Self.decode(
            #"{"expectations":[{"method":"GET","path":"/demo/*.jpg","credential":"fat-header","status":200}]}"#
        )
        let outcome = try #require(
            Verification(expectations: document.expectations, ordered: false).judge(records).first
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
        let byStatus = Verification(expectations: status.expectations, ordered: false).judge(records)
        #expect(
            byStatus[0].nearMisses.first?.explanation
                == "path matched, but status 403 where 200 was expected: the credential expired 3 min ago by the MockCDN clock"
        )
        // Without a status to explain, the credential's difference carries the account.
        let credential = try Self.decode(#"{"expectations":[{"path":"/demo/a.jpg","credential":"presigned"}]}"#)
        let byCredential = Verification(expectations: credential.expectations, ordered: false).judge(records)
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
            outcomes: Verification(expectations: document.expectations, ordered: false).judge(records),
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
}
