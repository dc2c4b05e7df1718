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
    }

    @Test func ifUnmodifiedSinceIsReadOnlyWithoutIfMatch() {
        #expect(self.outcome(ifUnmodifiedSince: Self.before) == .preconditionFailed)
        #expect(self.outcome(ifUnmodifiedSince: Self.after) == .serve(honourRange: true))
        // A matching If-Match wins over a failing date, as RFC 9110 and S3 both have it.
        #expect(self.outcome(ifMatch: Self.etag, ifUnmodifiedSince: Self.before) == .serve(honourRange: true))
        // A date that does not parse is ignored.
        #expect(self.outcome(ifUnmodifiedSince: "yesterday") == .serve(honourRange: true))
    }

    @Test func aFailedPreconditionComesBeforeNotModified() {
        #expect(self.outcome(ifMatch: "\"other\"", ifNoneMatch: Self.etag) == .preconditionFailed)
        #expect(self.outcome(ifMatch: Self.etag, ifNoneMatch: Self.etag) == .notModified)
        #expect(self.outcome(ifModifiedSince: Self.after) == .notModified)
    }
}
