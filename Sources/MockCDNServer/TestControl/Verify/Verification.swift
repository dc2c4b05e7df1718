/// Judges a list of expectations against the journal (`POST /_mockcdn/verify`).
///
/// The entries judged are the journal's, oldest first, after `since` when given (by id number, so an id the
/// ring has already dropped still works). Each expectation counts the entries that match every field it
/// gives, within its window, and is met when that count is within its `count`.
///
/// - Unordered, every expectation's window is every entry judged.
/// - Ordered, the first expectation's window is every entry judged, and each next one's starts after the
///   last entry the previous expectation matched (where that one matched nothing, its own window's start).
///   So `[A, B]` holds for `A B` and `A A B`, not for `B A` nor for `A B A` (the last `A` is A's last match,
///   and no `B` follows it).
///
/// An expectation with too few matches gets the closest other entries (`NearMiss.closest`); one with too
/// many lists them in its problem.
struct Verification: Sendable {
    /// What became of one expectation.
    struct Outcome: Sendable {
        /// Its place in the list, from 0.
        let index: Int
        /// The expectation judged.
        let expectation: JournalExpectation
        /// The ids of the entries that matched it, oldest first.
        let matched: [String]
        /// What fell short: `expected at least 1 matching request, found 0`; nil when met.
        let problem: String?
        /// The closest entries, for an unmet expectation.
        let nearMisses: [NearMiss]

        /// Whether its count held.
        var isMet: Bool { self.problem == nil }
    }

    /// The most near misses shown for one expectation.
    static let nearMissLimit = 3

    /// In the document's order.
    let expectations: [JournalExpectation]
    /// Whether each expectation's window starts after the previous one's last match.
    let ordered: Bool

    /// Judges the expectations.
    ///
    /// - Parameter records: the entries to judge, oldest first (already cut at `since`).
    /// - Returns: one outcome per expectation, in order.
    func judge(_ records: [JournalRecord]) -> [Outcome] {
        var start = 0
        var after: (id: String, expectation: Int)?
        var outcomes: [Outcome] = []
        for (index, expectation) in self.expectations.enumerated() {
            let window = self.ordered ? start : 0
            let matches = records.indices.filter { $0 >= window && expectation.matches(records[$0]) }
            let problem =
                expectation.count.holds(matches.count)
                ? nil : Self.problem(expectation.count, found: matches.map { records[$0].id }, after: after)
            outcomes.append(
                Outcome(
                    index: index,
                    expectation: expectation,
                    matched: matches.map { records[$0].id },
                    problem: problem,
                    // Too many matches are listed in the problem; too few are explained by the closest others.
                    nearMisses: matches.count >= expectation.count.min
                        ? []
                        : NearMiss.closest(
                            to: expectation,
                            among: records,
                            windowStart: window,
                            after: after,
                            limit: Self.nearMissLimit
                        )
                )
            )
            if self.ordered, let last = matches.last {
                start = last + 1
                after = (records[last].id, index)
            }
        }
        return outcomes
    }

    /// `expected at least 2 matching requests after r4 (expectations[0]'s last match), found 1 (r6)`: the
    /// first ten ids found (`matched` has them all).
    ///
    /// - Parameters:
    ///   - count: the expectation's count.
    ///   - found: the ids it matched.
    ///   - after: where its window started, ordered.
    /// - Returns: the sentence.
    static func problem(
        _ count: JournalExpectation.Count,
        found: [String],
        after: (id: String, expectation: Int)?
    ) -> String {
        var text = "expected \(count.requests)"
        if let after { text += " after \(after.id) (expectations[\(after.expectation)]'s last match)" }
        text += ", found \(found.count)"
        if !found.isEmpty {
            let shown = found.prefix(10).joined(separator: ", ")
            text += " (\(shown)\(found.count > 10 ? ", ..." : ""))"
        }
        return text
    }
}
