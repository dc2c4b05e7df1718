import Foundation
import MockCDNCore

/// One page of a bucket listing, as S3's ListObjectsV2 and ListObjects (v1) compute it: keys in UTF-8 byte
/// order after a start point, those under `prefix` only, keys sharing a part up to `delimiter` rolled into
/// one common prefix, at most `maxKeys` entries (keys and common prefixes together). The keys come from the
/// store in order, a batch at a time (`ObjectStore.keys(prefix:after:limit:)`).
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

    /// After every key under a common prefix: a key is under `prefix` when it starts with it, and in UTF-8
    /// byte order every such key but one that goes on with U+10FFFF (a noncharacter; the page's own checks
    /// still roll it up) comes before `prefix` followed by this.
    static let pastEveryKeyUnder = "\u{10FFFF}"

    /// The page, read from the store a batch of keys at a time from the start point, skipping past each
    /// common prefix once it is rolled up: a page costs its own keys, not the bucket's.
    ///
    /// - Parameters:
    ///   - prefix: only keys that start with it.
    ///   - delimiter: rolls keys that have it after the prefix into common prefixes; empty for none.
    ///   - after: start after this key or common prefix (`start-after`, a continuation token, `marker`).
    ///   - maxKeys: the most entries and common prefixes on the page; 0 lists nothing and is never truncated.
    ///   - keys: up to `limit` keys of the bucket (relative to it) that start with `prefix` and come after
    ///     the key given (nil: from the first), in UTF-8 byte order; `ObjectStore.keys(prefix:after:limit:)`.
    ///   - metadata: a key's object, nil when it went between the listing and the lookup (then not listed).
    /// - Returns: the page.
    /// - Throws: what `keys` or `metadata` throw.
    static func page(
        prefix: String,
        delimiter: String,
        after: String?,
        maxKeys: Int,
        keys: (_ after: String?, _ limit: Int) async throws -> [String],
        metadata: (String) async throws -> ObjectMetadata?
    ) async throws -> ObjectListing {
        // S3 answers `max-keys=0` with no entry and `IsTruncated` false, whatever the bucket holds.
        guard maxKeys > 0 else { return ObjectListing(entries: [], commonPrefixes: [], isTruncated: false, last: nil) }
        let batch = min(maxKeys, 1000) + 1
        var entries: [Entry] = []
        var prefixes: [String] = []
        var last: String?
        var truncated = false
        // A key under a common prefix the previous page ended on belongs to that prefix.
        let endedOnPrefix = after.map { !delimiter.isEmpty && $0.hasByteSuffix(delimiter) } ?? false
        var cursor = endedOnPrefix ? after.map { $0 + Self.pastEveryKeyUnder } : after
        reading: while true {
            let chunk = try await keys(cursor, batch)
            for key in chunk {
                cursor = key
                if let after, endedOnPrefix, key.hasBytePrefix(after) { continue }
                // By bytes, as S3 compares keys: a prefix or delimiter is never read as characters.
                var rolled: String?
                if !delimiter.isEmpty, let range = key.utf8.dropFirst(prefix.utf8.count).firstRange(of: delimiter.utf8)
                {
                    rolled = String(Substring(key.utf8[..<range.upperBound]))
                }
                if let rolled, let previous = prefixes.last, rolled.isByteEqual(previous) { continue }
                guard entries.count + prefixes.count < maxKeys else {
                    truncated = true
                    break reading
                }
                if let rolled {
                    prefixes.append(rolled)
                    last = rolled
                    cursor = rolled + Self.pastEveryKeyUnder
                    continue reading
                }
                guard let object = try await metadata(key) else { continue }
                entries.append(Entry(key: key, metadata: object))
                last = key
            }
            if chunk.count < batch { break }
        }
        return ObjectListing(entries: entries, commonPrefixes: prefixes, isTruncated: truncated, last: last)
    }
}
