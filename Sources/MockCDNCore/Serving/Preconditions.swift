import Foundation

/// The four preconditions of RFC 9110 section 13.2.2, in its order: If-Match, else If-Unmodified-Since; then
/// If-None-Match, else If-Modified-Since. One evaluation for both uses: a read's `If-*` headers
/// (`ConditionalRequest`, which makes a failing If-None-Match or If-Modified-Since a 304) and a copy's
/// `x-amz-copy-source-if-*` on its source, where S3 refuses every failing condition with 412.
public enum Preconditions {
    /// The condition that does not hold, named as its header (after `x-amz-copy-source-` on a copy).
    public enum Failure: String, Sendable, Equatable {
        /// No tag of If-Match is the object's.
        case ifMatch = "If-Match"
        /// The object was modified after If-Unmodified-Since (and there is no If-Match).
        case ifUnmodifiedSince = "If-Unmodified-Since"
        /// A tag of If-None-Match is the object's.
        case ifNoneMatch = "If-None-Match"
        /// The object was not modified after If-Modified-Since (and there is no If-None-Match).
        case ifModifiedSince = "If-Modified-Since"
    }

    /// Evaluates the conditions against the object. Entity tags match quoted or not (S3 takes both), `*`
    /// matches any, a list matches when one of its tags does, and If-None-Match compares weakly (`W/"x"` is
    /// `"x"`) where If-Match compares strongly, as RFC 9110 has them. A date that is no HTTP date
    /// (`HTTPDate.parse`: IMF-fixdate, a numeric zone, RFC 9110's obsolete forms) is ignored, and so is an
    /// If-Modified-Since later than `now` when it is given (a date in the future says nothing of the object;
    /// S3 copies then).
    ///
    /// - Parameters:
    ///   - ifMatch: the header value, if any.
    ///   - ifUnmodifiedSince: the header value, if any.
    ///   - ifNoneMatch: the header value, if any.
    ///   - ifModifiedSince: the header value, if any.
    ///   - etag: the object's entity tag, quoted.
    ///   - lastModified: the object's modification time, whole seconds.
    ///   - now: the server's current time, or nil to read an If-Modified-Since in the future as any other.
    /// - Returns: the first condition that does not hold, or nil when every one holds.
    public static func evaluate(
        ifMatch: String?,
        ifUnmodifiedSince: String?,
        ifNoneMatch: String?,
        ifModifiedSince: String?,
        etag: String,
        lastModified: Date,
        now: Date?
    ) -> Failure? {
        // Most requests carry no condition: nothing to read.
        guard ifMatch != nil || ifUnmodifiedSince != nil || ifNoneMatch != nil || ifModifiedSince != nil else {
            return nil
        }
        let tag = Self.unquoted(Substring(etag))
        if let ifMatch {
            guard Self.matches(ifMatch, tag, weakly: false) else { return .ifMatch }
        } else if let ifUnmodifiedSince, let since = HTTPDate.parse(ifUnmodifiedSince), lastModified > since {
            return .ifUnmodifiedSince
        }
        if let ifNoneMatch {
            if Self.matches(ifNoneMatch, tag, weakly: true) { return .ifNoneMatch }
        } else if let ifModifiedSince, let since = HTTPDate.parse(ifModifiedSince), since <= now ?? since,
            lastModified <= since
        {
            return .ifModifiedSince
        }
        return nil
    }

    /// Whether the header's list of tags names `tag` (unquoted), or is `*`; `weakly`, a `W/` tag counts too.
    private static func matches(_ header: String, _ tag: Substring, weakly: Bool) -> Bool {
        header.split(separator: ",").contains { listed in
            var text = Substring(listed.trimmingCharacters(in: .whitespaces))
            if text == "*" { return true }
            if text.hasPrefix("W/") {
                guard weakly else { return false }
                text = text.dropFirst(2)
            }
            return Self.unquoted(text) == tag
        }
    }

    /// A tag without its quotes, when it has them.
    private static func unquoted(_ tag: Substring) -> Substring {
        var text = tag
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = text.dropFirst().dropLast() }
        return text
    }
}
