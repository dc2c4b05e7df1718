/// A wildcard pattern over bytes: `*` matches any run (`/` and `?` included, as in CloudFront's policy
/// resources); everything else matches itself, and the pattern must cover the whole text. CloudFront
/// policies, fault rules and each segment of verify's path globs match with it.
///
/// The pattern is split at `*` into literal segments. It matches when its first segment is a prefix, its
/// last a suffix (not overlapping the prefix), and each middle segment is found in order between them.
/// Taking each middle segment's leftmost occurrence is never wrong (an earlier end leaves more room for the
/// rest), so no backtracking is needed; with a KMP search (`ByteSearch`) each segment costs time linear in the
/// text it scans, and a match costs O(text + pattern) however many stars the pattern has.
public struct Glob: Sendable {
    // Usable from inlinable code: verify matches a glob against each segment of a path, and a call into this
    // module per segment costs more than the comparison it makes.
    @usableFromInline let first: [UInt8]
    /// Empty middle segments (`**`) are dropped.
    @usableFromInline let middle: [ByteSearch]
    @usableFromInline let last: [UInt8]
    /// No `*`: the text must equal `first`.
    @usableFromInline let exact: Bool

    /// Compiles a pattern.
    ///
    /// - Parameter pattern: the pattern's bytes, `*` the only wildcard.
    public init(_ pattern: some Sequence<UInt8>) {
        let parts = Array(pattern).split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false)
            .map(Array.init)
        self.first = parts[0]
        self.last = parts[parts.count - 1]
        self.middle = parts.dropFirst().dropLast().filter { !$0.isEmpty }.map { ByteSearch($0) }
        self.exact = parts.count == 1
    }

    /// Whether every text matches: the pattern is stars only (`*`, `**`).
    public var matchesEverything: Bool {
        !self.exact && self.first.isEmpty && self.last.isEmpty && self.middle.isEmpty
    }

    /// Whether the pattern covers the whole of `text`.
    ///
    /// - Parameter text: the text.
    /// - Returns: true when it matches.
    public func matches(_ text: [UInt8]) -> Bool {
        var steps = 0
        return self.matches(text.span, steps: &steps)
    }

    /// Matches `text`, counting byte comparisons (so a test can show the cost is linear).
    ///
    /// - Parameters:
    ///   - text: the text.
    ///   - steps: counts the comparisons.
    /// - Returns: true when it matches.
    public func matches(_ text: [UInt8], steps: inout Int) -> Bool {
        self.matches(text.span, steps: &steps)
    }

    /// Matches text read in place (a path's segment, without copying it), counting byte comparisons: at most
    /// the pattern's length plus twice the text's.
    ///
    /// - Parameters:
    ///   - text: the text.
    ///   - steps: counts the comparisons.
    /// - Returns: true when the pattern covers the whole text.
    @inlinable
    public func matches(_ text: Span<UInt8>, steps: inout Int) -> Bool {
        let count = text.count
        if self.exact {
            guard count == self.first.count else { return false }
            return Self.equal(text, from: 0, self.first, steps: &steps)
        }
        guard count >= self.first.count + self.last.count else { return false }
        let end = count - self.last.count
        guard Self.equal(text, from: 0, self.first, steps: &steps),
            Self.equal(text, from: end, self.last, steps: &steps)
        else { return false }
        var position = self.first.count
        for segment in self.middle {
            guard let next = segment.end(in: text, from: position, to: end, steps: &steps) else { return false }
            position = next
        }
        return true
    }

    /// Whether `text[start...]` begins with `literal` (the caller has checked there is room).
    @inlinable
    static func equal(_ text: Span<UInt8>, from start: Int, _ literal: [UInt8], steps: inout Int) -> Bool {
        steps += literal.count
        for index in literal.indices where text[start + index] != literal[index] { return false }
        return true
    }
}
