import MockCDNCore

/// A path pattern of `POST /_mockcdn/verify`, matched against the journal's path (as sent, percent-encoding
/// kept, secrets redacted) segment by segment: within a segment `*` matches any run of characters but `/`
/// (and `Glob` matches the segment); a segment that is exactly `**` matches any number of whole segments,
/// none included; every other character matches itself, and the pattern must cover the whole path. So
/// `/demo/*/photo.jpg` matches `/demo/images/photo.jpg` but not `/demo/images/a/photo.jpg`, which
/// `/demo/**/photo.jpg` matches, and `/demo/**` matches `/demo` and everything under it.
///
/// The pattern is cut at its `**` segments into runs of single-segment globs: the first run must match the
/// path's first segments and the last run its last ones (each glob on its own segment, so linear), and each
/// run between is found at its leftmost place after the one before. Leftmost is never wrong (an earlier end
/// leaves more room for the rest), so nothing is tried twice. A run is found in one pass over the segments
/// (shift-and: a bit per glob of the run, set while the globs before it matched the segments before), each
/// segment read once by each distinct glob that could still extend a partial match. So a match costs the
/// path's length times the distinct globs of a run at most, and the usual patterns (`/demo/**/*.jpg`, a run of
/// one glob, or `**` repeated) cost about the path's length; `Verification` counts the steps and bounds them.
struct PathGlob: Sendable, CustomStringConvertible {
    /// A journal path cut at `/` once, so that every expectation reads the same segments.
    struct Path: Sendable {
        /// The path's UTF-8 bytes.
        let bytes: [UInt8]
        /// Where each segment starts, then one past the end: segment `i` is `bytes[starts[i] ..< starts[i + 1] - 1]`.
        let starts: [Int]

        /// Cuts `path` at each `/`.
        ///
        /// - Parameter path: a journal entry's path.
        init(_ path: String) {
            self.bytes = Array(path.utf8)
            var starts = [0]
            for (index, byte) in self.bytes.enumerated() where byte == UInt8(ascii: "/") { starts.append(index + 1) }
            starts.append(self.bytes.count + 1)
            self.starts = starts
        }

        /// How many segments: one more than the slashes.
        var count: Int { self.starts.count - 1 }
    }

    /// Single-segment globs between two `**` segments, found together.
    private struct Run: Sendable {
        /// One glob per segment, in order.
        let globs: [Glob]
        /// 64-bit words in a set of the run's positions.
        let words: Int
        /// The positions whose glob matches every segment (`*`), which need no look.
        let always: [UInt64]
        /// Each other distinct glob of the run once: a segment is matched once by each, however often it repeats.
        let tested: SegmentGlobs
        /// The positions each of `tested` holds, `words` words each, one after another.
        let positions: [UInt64]
        /// For each of `tested`, the first and last word its positions are in (`words` 2 and 7: 2 then 7).
        let spans: [Int]

        init(_ segments: [ArraySlice<UInt8>]) {
            self.globs = segments.map { Glob($0) }
            let words = max(1, (segments.count + 63) / 64)
            self.words = words
            var always = [UInt64](repeating: 0, count: words)
            var order: [[UInt8]] = []
            var positions: [[UInt8]: [UInt64]] = [:]
            for (index, segment) in segments.enumerated() {
                let bit = UInt64(1) << UInt64(index % 64)
                if self.globs[index].matchesEverything {
                    always[index / 64] |= bit
                    continue
                }
                let key = Array(segment)
                if positions[key] == nil {
                    order.append(key)
                    positions[key] = [UInt64](repeating: 0, count: words)
                }
                positions[key]![index / 64] |= bit
            }
            self.always = always
            self.tested = SegmentGlobs(order)
            self.positions = order.flatMap { positions[$0]! }
            self.spans = order.flatMap { key in
                let held = positions[key]!
                return [held.firstIndex { $0 != 0 } ?? 0, held.lastIndex { $0 != 0 } ?? 0]
            }
        }

        var count: Int { self.globs.count }

        /// The steps a segment visited in a scan counts besides its comparisons: cutting it out of the path and
        /// the loop's own work take about twice a byte comparison's time.
        static let visitCost = 2

        /// The steps a segment visited by a shift-and scan (`narrowEnd`, `wideEnd`) counts besides its
        /// comparisons: shifting the state and finding the globs that could extend it take about three times a
        /// plain visit (measured on the release build), so a step costs about the same time in every scan and
        /// the bound is about the same time whatever the pattern.
        static let shiftVisitCost = 7

        /// Matches the run against the path's segments from `start` on.
        ///
        /// - Parameters:
        ///   - bytes: the path's bytes.
        ///   - starts: where its segments start (`Path.starts`).
        ///   - start: the first segment.
        ///   - steps: counts the work.
        /// - Returns: whether each glob matches its segment.
        func matches(_ bytes: Span<UInt8>, starts: [Int], at start: Int, steps: inout Int) -> Bool {
            steps += self.count
            for offset in self.globs.indices {
                let index = start + offset
                let segment = bytes.extracting(starts[index]..<(starts[index + 1] - 1))
                guard self.globs[offset].matches(segment, steps: &steps) else { return false }
            }
            return true
        }

        /// Finds the run's leftmost place among the path's segments `start..<limit`.
        ///
        /// Shift-and: bit `i` of the state says globs `0...i` matched the segments ending here. Each segment
        /// shifts the state, sets bit 0, and keeps the bits whose glob matches it; a glob is looked at only when
        /// one of its positions could still be extended.
        ///
        /// - Parameters:
        ///   - bytes: the path's bytes.
        ///   - starts: where its segments start (`Path.starts`).
        ///   - start: the first segment it may take.
        ///   - limit: one past the last segment it may take.
        ///   - steps: counts the work.
        /// - Returns: one past the last segment of its leftmost place; nil when there is none.
        func end(in bytes: Span<UInt8>, starts: [Int], from start: Int, to limit: Int, steps: inout Int) -> Int? {
            guard limit - start >= self.count else { return nil }
            if self.count == 1, self.tested.count == 1 {
                return self.tested.withMatcher { tested in
                    let glob = tested.entry(0)
                    return starts.withUnsafeBufferPointer { starts in
                        for index in start..<limit {
                            steps += Self.visitCost
                            let segment = bytes.extracting(starts[index]..<(starts[index + 1] - 1))
                            if tested.matches(glob, segment, steps: &steps) { return index + 1 }
                        }
                        return nil
                    }
                }
            }
            if self.words == 1 {
                return self.narrowEnd(in: bytes, starts: starts, from: start, to: limit, steps: &steps)
            }
            return self.wideEnd(in: bytes, starts: starts, from: start, to: limit, steps: &steps)
        }

        /// Shift-and over one word: a run of at most 64 globs.
        private func narrowEnd(
            in bytes: Span<UInt8>,
            starts: [Int],
            from start: Int,
            to limit: Int,
            steps: inout Int
        ) -> Int? {
            let last = UInt64(1) << UInt64(self.count - 1)
            let always = self.always[0]
            // Read through buffer pointers, so that the loop over segments counts no references.
            return self.tested.withMatcher { tested in
                self.positions.withUnsafeBufferPointer { positions in
                    var state: UInt64 = 0
                    for index in start..<limit {
                        steps += Self.shiftVisitCost
                        let alive = (state << 1) | 1
                        var matched = always
                        if alive & ~always != 0 {
                            let segment = bytes.extracting(starts[index]..<(starts[index + 1] - 1))
                            for entry in 0..<positions.count where positions[entry] & alive != 0 {
                                steps += 1
                                if tested.matches(entry, segment, steps: &steps) { matched |= positions[entry] }
                            }
                        }
                        state = alive & matched
                        if state & last != 0 { return index + 1 }
                    }
                    return nil
                }
            }
        }

        /// Shift-and over several words, for a run of more than 64 globs.
        ///
        /// One pass over the live words shifts the state and keeps the bits of the globs that match everything;
        /// each other glob is looked at only over the words its positions are in, and only when one of them
        /// could be extended, and adds its bits when it matches.
        private func wideEnd(
            in bytes: Span<UInt8>,
            starts: [Int],
            from start: Int,
            to limit: Int,
            steps: inout Int
        ) -> Int? {
            let words = self.words
            let lastWord = (self.count - 1) / 64
            let last = UInt64(1) << UInt64((self.count - 1) % 64)
            let testedCount = self.tested.count
            // The sets live in one buffer on the stack, and the run's tables are read through buffer pointers: the
            // loop over segments counts no references and copies nothing.
            return self.tested.withMatcher { tested in
                self.positions.withUnsafeBufferPointer { positions in
                    self.spans.withUnsafeBufferPointer { spans in
                        self.always.withUnsafeBufferPointer { always in
                            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 * words) { sets in
                                sets.initialize(repeating: 0)
                                // `sets[0..<words]` is the state; `sets[words...]` the alive bits of this segment.
                                for index in start..<limit {
                                    // Only the words up to the highest one a partial match can have reached are live.
                                    let live = min(words, (index - start) / 64 + 1)
                                    steps += Self.shiftVisitCost + live
                                    var carry: UInt64 = 1
                                    var open: UInt64 = 0
                                    for word in 0..<live {
                                        let alive = (sets[word] << 1) | carry
                                        carry = sets[word] >> 63
                                        sets[words + word] = alive
                                        sets[word] = alive & always[word]
                                        open |= alive & ~always[word]
                                    }
                                    if open != 0 {
                                        let segment = bytes.extracting(starts[index]..<(starts[index + 1] - 1))
                                        for entry in 0..<testedCount {
                                            let base = entry * words
                                            let first = spans[2 * entry]
                                            let through = min(spans[2 * entry + 1], live - 1)
                                            guard first <= through else { continue }
                                            var reached = false
                                            for word in first...through
                                            where positions[base + word] & sets[words + word] != 0 {
                                                reached = true
                                                break
                                            }
                                            steps += 1
                                            guard reached, tested.matches(entry, segment, steps: &steps) else {
                                                continue
                                            }
                                            for word in first...through {
                                                sets[word] |= sets[words + word] & positions[base + word]
                                            }
                                        }
                                    }
                                    if lastWord < live, sets[lastWord] & last != 0 { return index + 1 }
                                }
                                return nil
                            }
                        }
                    }
                }
            }
        }
    }

    /// The pattern as given.
    let description: String
    /// The segments before the first `**` (all of them when there is none).
    private let head: Run
    /// The runs between `**` segments, in order; none empty.
    private let middle: [Run]
    /// The segments after the last `**`; nil when the pattern has no `**`.
    private let tail: Run?
    /// The fewest segments a matching path has.
    private let minimumSegments: Int

    /// Compiles a pattern.
    ///
    /// - Parameter pattern: the pattern, e.g. `/demo/**/*.jpg`.
    init(_ pattern: String) {
        self.description = pattern
        let bytes = Array(pattern.utf8)
        let segments = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        let runs = segments.split(omittingEmptySubsequences: false) { $0.elementsEqual("**".utf8) }
            .map { Run(Array($0)) }
        self.head = runs[0]
        self.tail = runs.count > 1 ? runs[runs.count - 1] : nil
        // Two `**` in a row are one: the empty run between them asks for nothing.
        self.middle = runs.count > 2 ? runs[1..<(runs.count - 1)].filter { $0.count > 0 } : []
        self.minimumSegments = self.head.count + (self.tail?.count ?? 0) + self.middle.reduce(0) { $0 + $1.count }
    }

    /// Whether the pattern covers the whole path.
    ///
    /// - Parameter path: a journal entry's path.
    /// - Returns: true when it matches.
    func matches(_ path: String) -> Bool {
        var steps = 0
        return self.matches(Path(path), steps: &steps)
    }

    /// Whether the pattern covers the whole path, counting the work.
    ///
    /// - Parameters:
    ///   - path: the path, cut into segments.
    ///   - steps: counts segment visits and byte comparisons.
    /// - Returns: true when it matches.
    func matches(_ path: Path, steps: inout Int) -> Bool {
        steps += 1
        let bytes = path.bytes.span
        let starts = path.starts
        guard let tail else {
            return path.count == self.head.count && self.head.matches(bytes, starts: starts, at: 0, steps: &steps)
        }
        guard path.count >= self.minimumSegments, self.head.matches(bytes, starts: starts, at: 0, steps: &steps),
            tail.matches(bytes, starts: starts, at: path.count - tail.count, steps: &steps)
        else { return false }
        var position = self.head.count
        let limit = path.count - tail.count
        for run in self.middle {
            guard let end = run.end(in: bytes, starts: starts, from: position, to: limit, steps: &steps) else {
                return false
            }
            position = end
        }
        return true
    }
}
