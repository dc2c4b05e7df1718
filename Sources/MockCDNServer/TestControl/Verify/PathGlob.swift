import MockCDNCore

/// A path pattern of `POST /_mockcdn/verify`, matched against the journal's path (as sent, percent-encoding
/// kept, secrets redacted) segment by segment: within a segment `*` matches any run of characters but `/`
/// (and `Glob` matches the segment); a segment that is exactly `**` matches any number of whole segments,
/// none included; every other character matches itself, and the pattern must cover the whole path. So
/// `/demo/*/photo.jpg` matches `/demo/images/photo.jpg` but not `/demo/images/a/photo.jpg`, which
/// `/demo/**/photo.jpg` matches, and `/demo/**` matches `/demo` and everything under it.
///
/// `**` is matched by dynamic programming over (pattern segment, path segment): at most
/// pattern segments × path segments segment matches, each linear in its segment, without backtracking.
struct PathGlob: Sendable, CustomStringConvertible {
    /// One segment of the pattern.
    private enum Part: Sendable {
        /// `**`: any number of whole segments.
        case anySegments
        /// A segment, `*` within it matching any run (the segment holds no `/` for it to cross).
        case segment(Glob)
    }

    /// The pattern as given.
    let description: String
    private let parts: [Part]

    /// Compiles a pattern.
    ///
    /// - Parameter pattern: the pattern, e.g. `/demo/**/*.jpg`.
    init(_ pattern: String) {
        self.description = pattern
        self.parts = Array(pattern.utf8).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map { $0.elementsEqual("**".utf8) ? .anySegments : .segment(Glob($0)) }
    }

    /// Whether the pattern covers the whole path.
    ///
    /// - Parameter path: a journal entry's path.
    /// - Returns: true when it matches.
    func matches(_ path: String) -> Bool {
        let segments = Array(path.utf8).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map(Array.init)
        // reachable[j]: the parts read so far can cover exactly the first j segments.
        var reachable = [Bool](repeating: false, count: segments.count + 1)
        reachable[0] = true
        for part in self.parts {
            var next = [Bool](repeating: false, count: segments.count + 1)
            switch part {
            case .anySegments:
                var covered = false
                for index in next.indices {
                    covered = covered || reachable[index]
                    next[index] = covered
                }
            case .segment(let glob):
                for index in segments.indices where reachable[index] && glob.matches(segments[index]) {
                    next[index + 1] = true
                }
            }
            guard next.contains(true) else { return false }
            reachable = next
        }
        return reachable[segments.count]
    }
}
