import Foundation
import MockCDNCore
import Testing

/// A copy's conditions on its source, in RFC 9110's order as S3 documents and answers them: If-Match, else
/// If-Unmodified-Since; then If-None-Match, else If-Modified-Since; every failure a refusal (no 304).
@Suite struct PreconditionsTests {
    static let etag = "\"9b2cf535f27731c974343645a3985328\""
    static let modified = Date(timeIntervalSince1970: 1_700_000_000)  // Tue, 14 Nov 2023 22:13:20 GMT
    static let now = Date(timeIntervalSince1970: 1_700_100_000)
    static let before = "Mon, 13 Nov 2023 22:00:00 GMT"
    static let same = "Tue, 14 Nov 2023 22:13:20 GMT"
    static let after = "Wed, 15 Nov 2023 00:00:00 GMT"
    /// After `now`: an If-Modified-Since S3 ignores.
    static let future = "Fri, 17 Nov 2023 00:00:00 GMT"

    /// One case: the four headers (If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since) and the
    /// condition that refuses the copy, if any.
    struct Case: CustomTestStringConvertible, Sendable {
        let ifMatch: String?
        let ifUnmodifiedSince: String?
        let ifNoneMatch: String?
        let ifModifiedSince: String?
        let failure: Preconditions.Failure?

        var testDescription: String {
            "\(ifMatch ?? "-") | \(ifUnmodifiedSince ?? "-") | \(ifNoneMatch ?? "-") | \(ifModifiedSince ?? "-")"
        }
    }

    static func when(
        match: String? = nil,
        unmodified: String? = nil,
        noneMatch: String? = nil,
        modified: String? = nil,
        fails failure: Preconditions.Failure?
    ) -> Case {
        Case(
            ifMatch: match,
            ifUnmodifiedSince: unmodified,
            ifNoneMatch: noneMatch,
            ifModifiedSince: modified,
            failure: failure
        )
    }

    static let cases: [Case] = [
        when(fails: nil),
        // Entity tags: quoted or not, in a list, `*`; If-Match compares strongly, If-None-Match weakly.
        when(match: etag, fails: nil),
        when(match: "9b2cf535f27731c974343645a3985328", fails: nil),
        when(match: "\"other\", \(etag)", fails: nil),
        when(match: "*", fails: nil),
        when(match: "\"other\"", fails: .ifMatch),
        when(match: "W/\(etag)", fails: .ifMatch),
        when(noneMatch: "\"other\"", fails: nil),
        when(noneMatch: etag, fails: .ifNoneMatch),
        when(noneMatch: "9b2cf535f27731c974343645a3985328", fails: .ifNoneMatch),
        when(noneMatch: "W/\(etag)", fails: .ifNoneMatch),
        when(noneMatch: "*", fails: .ifNoneMatch),
        // Dates: whole seconds; an equal date is "not modified since".
        when(unmodified: after, fails: nil),
        when(unmodified: same, fails: nil),
        when(unmodified: before, fails: .ifUnmodifiedSince),
        when(modified: before, fails: nil),
        when(modified: same, fails: .ifModifiedSince),
        when(modified: after, fails: .ifModifiedSince),
        when(modified: future, fails: nil),
        when(unmodified: "yesterday", fails: nil),
        when(modified: "yesterday", fails: nil),
        // S3's documented pairs: If-Match true wins over If-Unmodified-Since false; If-None-Match false with
        // If-Modified-Since true refuses.
        when(match: etag, unmodified: before, fails: nil),
        when(noneMatch: etag, modified: before, fails: .ifNoneMatch),
        // If-None-Match true: If-Modified-Since is not read (RFC 9110 13.2.2), but If-Unmodified-Since is.
        when(noneMatch: "\"other\"", modified: after, fails: nil),
        when(unmodified: before, noneMatch: "\"other\"", fails: .ifUnmodifiedSince),
        // The order in which S3 names the failure when several fail.
        when(match: "\"other\"", unmodified: before, noneMatch: etag, modified: after, fails: .ifMatch),
        when(unmodified: before, noneMatch: etag, modified: after, fails: .ifUnmodifiedSince),
        when(noneMatch: etag, modified: after, fails: .ifNoneMatch),
        when(match: etag, unmodified: before, noneMatch: etag, fails: .ifNoneMatch),
        when(match: etag, unmodified: before, modified: after, fails: .ifModifiedSince),
    ]

    @Test(arguments: Self.cases)
    func evaluates(_ check: Case) {
        let failure = Preconditions.evaluate(
            ifMatch: check.ifMatch,
            ifUnmodifiedSince: check.ifUnmodifiedSince,
            ifNoneMatch: check.ifNoneMatch,
            ifModifiedSince: check.ifModifiedSince,
            etag: Self.etag,
            lastModified: Self.modified,
            now: Self.now
        )
        #expect(failure == check.failure)
    }

    @Test func failuresAreNamedAsTheHeadersSuffix() {
        #expect(
            [Preconditions.Failure.ifMatch, .ifUnmodifiedSince, .ifNoneMatch, .ifModifiedSince].map(\.rawValue)
                == ["If-Match", "If-Unmodified-Since", "If-None-Match", "If-Modified-Since"]
        )
    }
}
