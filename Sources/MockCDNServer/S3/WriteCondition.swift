import Foundation
import Hummingbird
import MockCDNCore

/// A conditional PutObject or CompleteMultipartUpload, as S3 takes it: `If-None-Match: *` writes only where no
/// object is, `If-Match` only over the object with that ETag (quoted or not, or one of a list, or `*`: the
/// matching of a read's and a copy source's `If-Match`, `Preconditions`). Checked before the body is read (or
/// the parts joined) and again just before the object is committed.
struct WriteCondition: Sendable {
    let ifNoneMatch: Bool
    let ifMatch: String?

    /// The request's conditions.
    ///
    /// - Throws: 501 `NotImplemented` for an `If-None-Match` other than `*`, which S3 does not take either.
    init(_ request: Request) throws {
        if let value = request.headers[.ifNoneMatch] {
            guard value.trimmingCharacters(in: .whitespaces) == "*" else {
                throw S3Error(
                    status: HTTPResponse.Status(code: 501),
                    code: "NotImplemented",
                    message: "A header you provided implies functionality that is not implemented",
                    details: [("Header", "If-None-Match")]
                )
            }
            self.ifNoneMatch = true
        } else {
            self.ifNoneMatch = false
        }
        self.ifMatch = request.headers[.ifMatch]?.trimmingCharacters(in: .whitespaces)
    }

    /// Checks the conditions against what `store` holds at `key`.
    ///
    /// - Throws: 412 `PreconditionFailed`; 404 `NoSuchKey` for `If-Match` where there is no object.
    func check(_ store: any ObjectStore, key: ObjectKey) async throws {
        guard self.ifNoneMatch || self.ifMatch != nil else { return }
        let current = try await store.metadata(for: key)
        if self.ifNoneMatch, current != nil { throw S3Error.preconditionFailed(condition: "If-None-Match") }
        if let ifMatch = self.ifMatch {
            guard let current else { throw S3Error.noSuchKey() }
            let failure = Preconditions.evaluate(
                ifMatch: ifMatch,
                ifUnmodifiedSince: nil,
                ifNoneMatch: nil,
                ifModifiedSince: nil,
                etag: current.etag,
                lastModified: current.created,
                now: nil
            )
            guard failure == nil else { throw S3Error.preconditionFailed(condition: "If-Match") }
        }
    }
}
