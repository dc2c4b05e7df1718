import Foundation
import MockCDNCore
import Testing

/// RFC 9110 section 13.2.2's order: If-Match, else If-Unmodified-Since; then If-None-Match, else
/// If-Modified-Since; then If-Range.
@Suite struct ConditionalRequestTests {
    static let etag = "\"abc\""
    static let modified = Date(timeIntervalSince1970: 1_700_000_000)
    static let before = "Mon, 13 Nov 2023 22:00:00 GMT"
    static let after = "Wed, 15 Nov 2023 00:00:00 GMT"

    func outcome(
        ifMatch: String? = nil,
        ifUnmodifiedSince: String? = nil,
        ifNoneMatch: String? = nil,
        ifModifiedSince: String? = nil
    ) -> ConditionalRequest.Outcome {
        ConditionalRequest.evaluate(
            ifMatch: ifMatch,
            ifUnmodifiedSince: ifUnmodifiedSince,
            ifNoneMatch: ifNoneMatch,
            ifModifiedSince: ifModifiedSince,
            ifRange: nil,
            etag: Self.etag,
            lastModified: Self.modified
        )
    }

    @Test func ifMatchComparesStrongly() {
        #expect(self.outcome(ifMatch: "\"abc\"") == .serve(honourRange: true))
        #expect(self.outcome(ifMatch: "\"x\", \"abc\"") == .serve(honourRange: true))
        #expect(self.outcome(ifMatch: "*") == .serve(honourRange: true))
        #expect(self.outcome(ifMatch: "W/\"abc\"") == .preconditionFailed)
        #expect(self.outcome(ifMatch: "\"other\"") == .preconditionFailed)
        // Unquoted tags match as S3 takes them (the evaluation is `Preconditions`, shared with copies).
        #expect(self.outcome(ifMatch: "abc") == .serve(honourRange: true))
        #expect(self.outcome(ifNoneMatch: "x, abc") == .notModified)
    }

    @Test func ifUnmodifiedSinceIsReadOnlyWithoutIfMatch() {
        #expect(self.outcome(ifUnmodifiedSince: Self.before) == .preconditionFailed)
        #expect(self.outcome(ifUnmodifiedSince: Self.after) == .serve(honourRange: true))
        // A matching If-Match wins over a failing date, as RFC 9110 and S3 both have it.
        #expect(self.outcome(ifMatch: Self.etag, ifUnmodifiedSince: Self.before) == .serve(honourRange: true))
        // A date that does not parse is ignored.
        #expect(self.outcome(ifUnmodifiedSince: "yesterday") == .serve(honourRange: true))
    }

    /// RFC 9110 section 5.6.7: a recipient accepts the obsolete date forms too; a numeric zone is converted.
    @Test(
        arguments: [
            ("Wed, 15 Nov 2023 01:00:00 +0100", true), ("Tue, 14 Nov 2023 23:00:00 +0100", false),
            ("Tue, 14 Nov 2023 15:13:20 -0700", true), ("Wednesday, 15-Nov-23 00:00:00 GMT", true),
            ("Wed Nov 15 00:00:00 2023", true), ("Mon Nov 13 22:00:00 2023", false),
        ]
    )
    func ifModifiedSinceReadsEveryDateForm(date: String, notModified: Bool) {
        #expect(self.outcome(ifModifiedSince: date) == (notModified ? .notModified : .serve(honourRange: true)))
        #expect(
            self.outcome(ifUnmodifiedSince: date) == (notModified ? .serve(honourRange: true) : .preconditionFailed)
        )
    }

    @Test func aFailedPreconditionComesBeforeNotModified() {
        #expect(self.outcome(ifMatch: "\"other\"", ifNoneMatch: Self.etag) == .preconditionFailed)
        #expect(self.outcome(ifMatch: Self.etag, ifNoneMatch: Self.etag) == .notModified)
        #expect(self.outcome(ifModifiedSince: Self.after) == .notModified)
    }
}
