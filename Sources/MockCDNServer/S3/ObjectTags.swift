import Foundation
import MockCDNCore

/// An object's tags as S3 keeps them: up to 10 key and value pairs, in the order they were given, kept among
/// the object's extras (`tags`, in the URL-query form `x-amz-tagging` sends: `project=blue&tier=1`) wherever
/// the store keeps its metadata. An object without the extra has none. Reads name how many there are
/// (`x-amz-tagging-count`); GetObjectTagging lists them.
struct ObjectTags: Equatable, Sendable {
    /// The extra that keeps them.
    static let extra = "tags"
    /// The header a read answers with the number of tags, when there are any.
    static let countHeader = "x-amz-tagging-count"

    /// The pairs, in order.
    let pairs: [(key: String, value: String)]

    /// Tags of these pairs, in order.
    init(_ pairs: [(key: String, value: String)]) {
        self.pairs = pairs
    }

    /// The tags `metadata` keeps; none for an object without the extra.
    ///
    /// - Parameter metadata: a stored object.
    init(of metadata: ObjectMetadata) {
        self.init(extraValue: metadata.extras[Self.extra])
    }

    /// The tags an extra's value (or an `x-amz-tagging` header) names, without checking S3's limits.
    ///
    /// - Parameter text: `key=value` pairs joined by `&`, each percent-encoded (`+` is a space, as in a form);
    ///   nil or empty for none.
    init(extraValue text: String?) {
        var pairs: [(key: String, value: String)] = []
        for field in (text ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            pairs.append((key: Self.decode(parts[0]), value: parts.count > 1 ? Self.decode(parts[1]) : ""))
        }
        self.pairs = pairs
    }

    /// The value of the extra: nil for no tags, so that an untagged object keeps no extra.
    var extraValue: String? {
        guard !self.pairs.isEmpty else { return nil }
        return self.pairs.map { PercentEncoding.encode($0.key) + "=" + PercentEncoding.encode($0.value) }
            .joined(separator: "&")
    }

    static func == (lhs: ObjectTags, rhs: ObjectTags) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.key == $1.key && $0.value == $1.value }
    }

    /// A query component decoded as S3 reads `x-amz-tagging`: `+` a space, then percent-escapes; an invalid
    /// escape is kept as it is.
    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return PercentEncoding.decode(spaced.utf8) ?? String(spaced)
    }
}
