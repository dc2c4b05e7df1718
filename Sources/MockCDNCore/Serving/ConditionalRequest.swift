import Foundation

/// RFC 9110 section 13 preconditions for GET and HEAD of a stored object.
public enum ConditionalRequest {
    /// What the preconditions decide.
    public enum Outcome: Sendable, Equatable {
        /// 304 Not Modified.
        case notModified
        /// 412 Precondition Failed: `If-Match` or `If-Unmodified-Since` does not hold.
        case preconditionFailed
        /// Serve, honouring Range only when `honourRange` (If-Range may say the client's copy is stale).
        case serve(honourRange: Bool)
    }

    /// Evaluates If-Match, If-Unmodified-Since, If-None-Match and If-Modified-Since as `Preconditions` has them
    /// (RFC 9110 section 13.2.2: each date is read only when its entity-tag partner is absent), then If-Range.
    ///
    /// - Parameters:
    ///   - ifMatch: the header value, if any.
    ///   - ifUnmodifiedSince: the header value, if any.
    ///   - ifNoneMatch: the header value, if any.
    ///   - ifModifiedSince: the header value, if any.
    ///   - ifRange: the header value, if any.
    ///   - etag: the object's strong entity tag, quoted.
    ///   - lastModified: the object's modification time, whole seconds.
    /// - Returns: the outcome.
    public static func evaluate(
        ifMatch: String? = nil,
        ifUnmodifiedSince: String? = nil,
        ifNoneMatch: String?,
        ifModifiedSince: String?,
        ifRange: String?,
        etag: String,
        lastModified: Date
    ) -> Outcome {
        switch Preconditions.evaluate(
            ifMatch: ifMatch,
            ifUnmodifiedSince: ifUnmodifiedSince,
            ifNoneMatch: ifNoneMatch,
            ifModifiedSince: ifModifiedSince,
            etag: etag,
            lastModified: lastModified,
            now: nil
        ) {
        case .ifMatch, .ifUnmodifiedSince: return .preconditionFailed
        case .ifNoneMatch, .ifModifiedSince: return .notModified
        case nil: break
        }
        guard let ifRange else { return .serve(honourRange: true) }
        let trimmed = ifRange.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("\"") || trimmed.hasPrefix("W/") {
            // If-Range needs a strong match; a weak tag never matches.
            return .serve(honourRange: trimmed == etag)
        }
        guard let date = HTTPDate.parse(trimmed) else { return .serve(honourRange: false) }
        return .serve(honourRange: date == lastModified)
    }
}
