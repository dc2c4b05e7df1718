/// A wildcard pattern over bytes: `*` matches any run (`/` and `?` included, as in CloudFront's policy
/// resources); everything else matches itself, and the pattern must cover the whole text. CloudFront
/// policies and fault rules match with it.
///
/// The pattern is split at `*` into literal segments. It matches when its first segment is a prefix, its
/// last a suffix (not overlapping the prefix), and each middle segment is found in order between them.
/// Taking each middle segment's leftmost occurrence is never wrong (an earlier end leaves more room for the
/// rest), so no backtracking is needed; with a KMP search each segment costs time linear in the text it
/// scans, and a match costs O(text + pattern) however many stars the pattern has.
public struct Glob: Sendable {
    /// A literal between stars, with its KMP failure table: `failure[i]` is the length of the longest proper
    /// prefix of `bytes[...i]` that is also its suffix.
    struct Segment: Sendable {
        let bytes: [UInt8]
        let failure: [Int]

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
            var failure = [Int](repeating: 0, count: bytes.count)
            var length = 0
            for index in bytes.indices.dropFirst() {
                while length > 0, bytes[index] != bytes[length] { length = failure[length - 1] }
                if bytes[index] == bytes[length] { length += 1 }
                failure[index] = length
            }
            self.failure = failure
        }

        /// Finds the segment's leftmost occurrence in `text[start..<end]`.
        ///
        /// - Parameters:
        ///   - text: the path.
        ///   - start: where to start looking.
        ///   - end: where an occurrence must end by.
        ///   - steps: counts the comparisons, at most twice the bytes scanned.
        /// - Returns: the index just past the occurrence; nil when there is none.
        func end(in text: [UInt8], from start: Int, to end: Int, steps: inout Int) -> Int? {
            var matched = 0
            var index = start
            while end - index >= self.bytes.count - matched {
                steps += 1
                if text[index] == self.bytes[matched] {
                    matched += 1
                    index += 1
                    if matched == self.bytes.count { return index }
                } else if matched > 0 {
                    matched = self.failure[matched - 1]
                } else {
                    index += 1
                }
            }
            return nil
        }
    }

    private let first: [UInt8]
    /// Empty middle segments (`**`) are dropped.
    private let middle: [Segment]
    private let last: [UInt8]
    /// No `*`: the text must equal `first`.
    private let exact: Bool

    public init(_ pattern: some Sequence<UInt8>) {
        let parts = Array(pattern).split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false)
            .map(Array.init)
        self.first = parts[0]
        self.last = parts[parts.count - 1]
        self.middle = parts.dropFirst().dropLast().filter { !$0.isEmpty }.map(Segment.init)
        self.exact = parts.count == 1
    }

    public func matches(_ text: [UInt8]) -> Bool {
        var steps = 0
        return self.matches(text, steps: &steps)
    }

    /// Matches `text`, counting byte comparisons (so a test can show the cost is linear).
    public func matches(_ text: [UInt8], steps: inout Int) -> Bool {
        if self.exact {
            steps += self.first.count
            return text == self.first
        }
        guard text.count >= self.first.count + self.last.count else { return false }
        steps += self.first.count + self.last.count
        guard text.starts(with: self.first), text[(text.count - self.last.count)...].elementsEqual(self.last) else {
            return false
        }
        var position = self.first.count
        let end = text.count - self.last.count
        for segment in self.middle {
            guard let next = segment.end(in: text, from: position, to: end, steps: &steps) else { return false }
            position = next
        }
        return true
    }
}
