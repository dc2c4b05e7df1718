import MockCDNCore

/// The distinct one-segment globs of a path glob's run, laid out flat so that matching one against a segment
/// in the scan over a path's segments counts no references: a literal (`photo.jpg`) and a glob of one `*`
/// (`*.jpg`, `img-*`, `a*b`) are compared in place against bytes kept in one array; only a glob of two or more
/// stars (`*a*`) calls `Glob`, whose three arrays are retained and released around each call, so such a call
/// counts `generalCost` steps besides its comparisons (the step count stays a measure of time).
struct SegmentGlobs: Sendable {
    /// What a glob needs compared.
    private enum Shape: Int {
        /// The segment must equal the bytes.
        case literal
        /// The segment must start with the prefix and end with the suffix, not overlapping.
        case oneStar
        /// `Glob` decides.
        case general
    }

    /// The steps a call into `Glob` counts besides its comparisons.
    static let generalCost = 16

    /// Per glob, `fields` integers: its shape, the start and length of its prefix (or literal) in `pool`, the
    /// start and length of its suffix, and its index in `globs` for a general one.
    private let table: [Int]
    private static let fields = 6
    /// Every literal, prefix and suffix, one after another.
    private let pool: [UInt8]
    /// The general globs.
    private let globs: [Glob]

    /// Lays out `patterns`, each one segment's pattern (no `/`).
    init(_ patterns: [[UInt8]]) {
        var table: [Int] = []
        var pool: [UInt8] = []
        var globs: [Glob] = []
        for pattern in patterns {
            let parts = pattern.split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false)
            let prefix = parts[0]
            let suffix = parts[parts.count - 1]
            let shape: Shape = parts.count == 1 ? .literal : parts.count == 2 ? .oneStar : .general
            let general = shape == .general ? globs.count : -1
            if shape == .general { globs.append(Glob(pattern)) }
            table += [shape.rawValue, pool.count, prefix.count, pool.count + prefix.count, suffix.count, general]
            pool += prefix
            pool += suffix
        }
        self.table = table
        self.pool = pool
        self.globs = globs
    }

    /// How many globs.
    var count: Int { self.table.count / Self.fields }

    /// Runs `body` with the globs read through buffer pointers, valid only inside it.
    func withMatcher<Result>(_ body: (Matcher) -> Result) -> Result {
        self.table.withUnsafeBufferPointer { table in
            self.pool.withUnsafeBufferPointer { pool in
                self.globs.withUnsafeBufferPointer { globs in
                    body(Matcher(table: table, pool: pool, globs: globs))
                }
            }
        }
    }

    /// One glob's row of the table.
    struct Entry {
        fileprivate let shape: Int
        fileprivate let prefixStart: Int
        fileprivate let prefixCount: Int
        fileprivate let suffixStart: Int
        fileprivate let suffixCount: Int
        fileprivate let general: Int
    }

    /// The globs as buffer pointers, for one scan.
    struct Matcher {
        let table: UnsafeBufferPointer<Int>
        let pool: UnsafeBufferPointer<UInt8>
        let globs: UnsafeBufferPointer<Glob>

        /// Glob `index`'s row, read once for a scan over many segments.
        @inline(__always)
        func entry(_ index: Int) -> Entry {
            let base = index * SegmentGlobs.fields
            return Entry(
                shape: self.table[base],
                prefixStart: self.table[base + 1],
                prefixCount: self.table[base + 2],
                suffixStart: self.table[base + 3],
                suffixCount: self.table[base + 4],
                general: self.table[base + 5]
            )
        }

        /// Whether glob `index` covers the whole segment.
        ///
        /// - Parameters:
        ///   - index: the glob's index.
        ///   - segment: the segment's bytes.
        ///   - steps: counts the comparisons (and a general glob's call).
        /// - Returns: true when it matches.
        @inline(__always)
        func matches(_ index: Int, _ segment: Span<UInt8>, steps: inout Int) -> Bool {
            self.matches(self.entry(index), segment, steps: &steps)
        }

        /// Whether a glob's row covers the whole segment; a length that cannot match costs no comparison.
        @inline(__always)
        func matches(_ entry: Entry, _ segment: Span<UInt8>, steps: inout Int) -> Bool {
            let count = segment.count
            switch entry.shape {
            case Shape.literal.rawValue:
                guard count == entry.prefixCount else { return false }
                return self.equal(segment, from: 0, entry.prefixStart, entry.prefixCount, steps: &steps)
            case Shape.oneStar.rawValue:
                guard count >= entry.prefixCount + entry.suffixCount else { return false }
                return self.equal(segment, from: 0, entry.prefixStart, entry.prefixCount, steps: &steps)
                    && self.equal(
                        segment,
                        from: count - entry.suffixCount,
                        entry.suffixStart,
                        entry.suffixCount,
                        steps: &steps
                    )
            default:
                steps += SegmentGlobs.generalCost
                return self.globs[entry.general].matches(segment, steps: &steps)
            }
        }

        /// Whether `segment[from...]` starts with the pool's `count` bytes at `start`.
        @inline(__always)
        private func equal(_ segment: Span<UInt8>, from: Int, _ start: Int, _ count: Int, steps: inout Int) -> Bool {
            steps += count
            for offset in 0..<count where segment[from + offset] != self.pool[start + offset] { return false }
            return true
        }
    }
}
