import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore

/// The conditions a CopyObject or UploadPartCopy sets on its source: `x-amz-copy-source-if-match`,
/// `-if-none-match`, `-if-unmodified-since` and `-if-modified-since`, evaluated as `Preconditions` has
/// them. Checked once the source is found and before a byte of it is read: a condition that does not hold
/// is 412 `PreconditionFailed` naming it as S3 does (`<Condition>x-amz-copy-source-If-Match</Condition>`),
/// and nothing is written.
struct CopySourceCondition {
    /// What S3 puts before a condition's name in `<Condition>`.
    static let prefix = "x-amz-copy-source-"
    /// The copy proceeds only from a source with one of these ETags (or `*`).
    static let ifMatchHeader = HTTPField.Name("x-amz-copy-source-if-match")!
    /// The copy proceeds only from a source with none of these ETags (`*`: none at all).
    static let ifNoneMatchHeader = HTTPField.Name("x-amz-copy-source-if-none-match")!
    /// The copy proceeds only from a source modified after this date.
    static let ifModifiedSinceHeader = HTTPField.Name("x-amz-copy-source-if-modified-since")!
    /// The copy proceeds only from a source not modified after this date.
    static let ifUnmodifiedSinceHeader = HTTPField.Name("x-amz-copy-source-if-unmodified-since")!

    /// The request's `x-amz-copy-source-if-match`, as sent.
    let ifMatch: String?
    /// The request's `x-amz-copy-source-if-none-match`, as sent.
    let ifNoneMatch: String?
    /// The request's `x-amz-copy-source-if-modified-since`, as sent.
    let ifModifiedSince: String?
    /// The request's `x-amz-copy-source-if-unmodified-since`, as sent.
    let ifUnmodifiedSince: String?

    /// The request's conditions (none, when it sends none of the headers).
    init(_ request: Request) {
        self.ifMatch = request.headers[Self.ifMatchHeader]
        self.ifNoneMatch = request.headers[Self.ifNoneMatchHeader]
        self.ifModifiedSince = request.headers[Self.ifModifiedSinceHeader]
        self.ifUnmodifiedSince = request.headers[Self.ifUnmodifiedSinceHeader]
    }

    /// Checks the conditions against the source.
    ///
    /// - Parameters:
    ///   - source: the source object.
    ///   - now: the MockCDN clock's time (an If-Modified-Since after it is ignored).
    /// - Throws: 412 `PreconditionFailed` with the condition that does not hold.
    func check(_ source: ObjectMetadata, now: Date) throws(S3Error) {
        let failure = Preconditions.evaluate(
            ifMatch: self.ifMatch,
            ifUnmodifiedSince: self.ifUnmodifiedSince,
            ifNoneMatch: self.ifNoneMatch,
            ifModifiedSince: self.ifModifiedSince,
            etag: source.etag,
            lastModified: source.created,
            now: now
        )
        if let failure { throw .preconditionFailed(condition: Self.prefix + failure.rawValue) }
    }
}
