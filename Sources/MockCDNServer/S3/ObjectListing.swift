import Foundation
import MockCDNCore

/// One page of a bucket listing, as S3's ListObjectsV2 and ListObjects (v1) compute it: keys in UTF-8 byte
/// order after a start point, those under `prefix` only, keys sharing a part up to `delimiter` rolled into
/// one common prefix, at most `maxKeys` entries (keys and common prefixes together).
struct ObjectListing {
    /// A stored object, by its key within the bucket.
    struct Entry {
        let key: String
        let metadata: ObjectMetadata
    }

    let entries: [Entry]
    let commonPrefixes: [String]
    /// More follow after `last`.
    let isTruncated: Bool
    /// The last key or common prefix of the page, where the next page starts.
    let last: String?

    /// The page of `objects` (keys relative to the bucket, in any order).
    ///
    /// - Parameters:
    ///   - objects: every object of the bucket, by key.
    ///   - prefix: only keys that start with it.
    ///   - delimiter: rolls keys that have it after the prefix into common prefixes; empty for none.
    ///   - after: start after this key or common prefix (`start-after`, a continuation token, `marker`).
    ///   - maxKeys: the most entries and common prefixes on the page.
    init(_ objects: [Entry], prefix: String, delimiter: String, after: String?, maxKeys: Int) {
        let sorted = objects.filter { $0.key.hasPrefix(prefix) }.sorted { Self.precedes($0.key, $1.key) }
        var entries: [Entry] = []
        var prefixes: [String] = []
        var last: String?
        var truncated = false
        for object in sorted {
            if let after, !Self.precedes(after, object.key) { continue }
            // A key under a common prefix the previous page ended on belongs to that prefix.
            if let after, !delimiter.isEmpty, after.hasSuffix(delimiter), object.key.hasPrefix(after) { continue }
            var rolled: String?
            if !delimiter.isEmpty, let range = object.key.dropFirst(prefix.count).range(of: delimiter) {
                rolled = String(object.key[..<range.upperBound])
            }
            if let rolled, rolled == prefixes.last { continue }
            guard entries.count + prefixes.count < maxKeys else {
                truncated = true
                break
            }
            if let rolled {
                prefixes.append(rolled)
                last = rolled
            } else {
                entries.append(object)
                last = object.key
            }
        }
        self.entries = entries
        self.commonPrefixes = prefixes
        self.isTruncated = truncated
        self.last = last
    }

    /// S3's order: by the keys' UTF-8 bytes.
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }
}
