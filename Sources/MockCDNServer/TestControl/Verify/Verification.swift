import MockCDNCore

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
///
/// The work is bounded: each entry's path is cut into segments once, each field of each entry is compared at
/// most once per expectation (the constant-time fields first), path globs and query text match in time about
/// linear in the entry (`PathGlob`, `ByteSearch`), and every step counts against `stepLimit`.
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

    /// The most steps one verify may take (a step: a byte of a path or query read or compared, a path segment
    /// visited (two), a word of a run's bit sets shifted, an entry judged against an expectation): about a
    /// second of one core's time on a loaded 2-core machine, and what the largest document of the usual costly
    /// globs takes over a full default journal of the longest paths, with room (`docs/verify.md`). What would
    /// take more is refused (`VerifyCostRefusal`) rather than held on a thread for longer.
    static let stepLimit = 300_000_000

    /// The steps an entry that matches costs besides its comparisons: its id is kept and written in the answer,
    /// so a document of `{}` over a large journal is bounded by its answer's size too.
    static let matchCost = 16

    /// In the document's order.
    let expectations: [JournalExpectation]
    /// Whether each expectation's window starts after the previous one's last match.
    let ordered: Bool
    /// The steps this judgement may take.
    var stepLimit = Verification.stepLimit

    /// A journal entry made ready to be matched once for every expectation: its path cut at `/`, its query's
    /// bytes.
    struct Subject: Sendable {
        let record: JournalRecord
        let path: PathGlob.Path
        let query: [UInt8]

        init(_ record: JournalRecord) {
            self.record = record
            self.path = PathGlob.Path(record.path)
            self.query = Array(record.query.utf8)
        }
    }

    /// A set of an expectation's fields, one bit each.
    struct Fields: OptionSet, Sendable {
        let rawValue: UInt8

        init(rawValue: UInt8) { self.rawValue = rawValue }

        init(_ field: JournalExpectation.Field) {
            switch field {
            case .method: self = .method
            case .path: self = .path
            case .query: self = .query
            case .credential: self = .credential
            case .status: self = .status
            }
        }

        init(_ fields: [JournalExpectation.Field]) {
            self = fields.reduce(into: Fields()) { $0.insert(Fields($1)) }
        }

        static let method = Fields(rawValue: 1)
        static let path = Fields(rawValue: 2)
        static let query = Fields(rawValue: 4)
        static let credential = Fields(rawValue: 8)
        static let status = Fields(rawValue: 16)
        /// Compared in constant time, so each entry's are read first.
        static let cheap: Fields = [.method, .credential, .status]

        /// The fields in report order.
        var list: [JournalExpectation.Field] { JournalExpectation.Field.allCases.filter { self.contains(Fields($0)) } }

        /// How many fields.
        var count: Int { self.rawValue.nonzeroBitCount }
    }

    /// Judges the expectations.
    ///
    /// - Parameter records: the entries to judge, oldest first (already cut at `since`).
    /// - Returns: one outcome per expectation, in order.
    /// - Throws: `VerifyCostRefusal` when the judgement would take more than `stepLimit` steps.
    func judge(_ records: [JournalRecord]) throws(VerifyCostRefusal) -> [Outcome] {
        var budget = Budget(limit: self.stepLimit, expectations: self.expectations.count, entries: records.count)
        var subjects: [Subject] = []
        subjects.reserveCapacity(records.count)
        for record in records {
            budget.steps += 1 + record.path.utf8.count + record.query.utf8.count
            subjects.append(Subject(record))
        }
        try budget.check()
        var start = 0
        var after: (id: String, expectation: Int)?
        var outcomes: [Outcome] = []
        for (index, expectation) in self.expectations.enumerated() {
            let window = self.ordered ? start : 0
            var judged = Judged(expectation, count: subjects.count)
            var matches: [Int] = []
            for entry in window..<max(window, subjects.count) {
                budget.steps += 1
                if judged.matchesAll(subjects[entry], at: entry, steps: &budget.steps) {
                    budget.steps += Self.matchCost
                    matches.append(entry)
                }
                // One entry's comparisons are bounded (a path and a query of 2 KiB each), so a check per entry
                // stops the judgement close to the bound.
                try budget.check()
            }
            let problem =
                expectation.count.holds(matches.count)
                ? nil : Self.problem(expectation.count, found: matches.map { records[$0].id }, after: after)
            // Too many matches are listed in the problem; too few are explained by the closest others, for which
            // every entry's every field is needed.
            var nearMisses: [NearMiss] = []
            if matches.count < expectation.count.min {
                for entry in subjects.indices {
                    budget.steps += 1
                    judged.evaluate(judged.given, of: subjects[entry], at: entry, steps: &budget.steps)
                    try budget.check()
                }
                nearMisses = NearMiss.closest(
                    to: expectation,
                    among: records,
                    matched: judged.matched,
                    windowStart: window,
                    after: after,
                    limit: Self.nearMissLimit
                )
            }
            outcomes.append(
                Outcome(
                    index: index,
                    expectation: expectation,
                    matched: matches.map { records[$0].id },
                    problem: problem,
                    nearMisses: nearMisses
                )
            )
            if self.ordered, let last = matches.last {
                start = last + 1
                after = (records[last].id, index)
            }
        }
        return outcomes
    }

    /// The steps taken so far, and the bound.
    struct Budget {
        let limit: Int
        let expectations: Int
        let entries: Int
        var steps = 0

        /// - Throws: `VerifyCostRefusal` once the steps are past the limit.
        func check() throws(VerifyCostRefusal) {
            guard self.steps > self.limit else { return }
            throw VerifyCostRefusal(limit: self.limit, expectations: self.expectations, entries: self.entries)
        }
    }

    /// One expectation's fields against every entry, each field of each entry compared at most once.
    struct Judged {
        let expectation: JournalExpectation
        /// The fields the expectation gives.
        let given: Fields
        /// Its `query`, ready to be found in bytes.
        private let query: ByteSearch?
        /// Per entry: the fields compared so far.
        private var known: [Fields]
        /// Per entry: the fields that matched.
        private(set) var matched: [Fields]

        init(_ expectation: JournalExpectation, count: Int) {
            self.expectation = expectation
            self.given = Fields(expectation.fields)
            self.query = expectation.query.map { ByteSearch($0.utf8) }
            self.known = [Fields](repeating: [], count: count)
            self.matched = self.known
        }

        /// Whether the entry matches every field given: the cheap fields first, the query and the path only
        /// when those matched.
        mutating func matchesAll(_ subject: Subject, at index: Int, steps: inout Int) -> Bool {
            self.evaluate(self.given.intersection(.cheap), of: subject, at: index, steps: &steps)
            guard self.matched[index].isSuperset(of: self.given.intersection(.cheap)) else { return false }
            self.evaluate(self.given.intersection(.query), of: subject, at: index, steps: &steps)
            guard self.matched[index].isSuperset(of: self.given.intersection(.query)) else { return false }
            self.evaluate(self.given.intersection(.path), of: subject, at: index, steps: &steps)
            return self.matched[index] == self.given
        }

        /// Compares the fields of `fields` not compared yet.
        mutating func evaluate(_ fields: Fields, of subject: Subject, at index: Int, steps: inout Int) {
            let todo = fields.subtracting(self.known[index])
            guard !todo.isEmpty else { return }
            var matched = Fields()
            let record = subject.record
            if todo.contains(.method), self.expectation.method == record.method.uppercased() {
                matched.insert(.method)
            }
            if todo.contains(.credential), self.expectation.credential == record.credential {
                matched.insert(.credential)
            }
            if todo.contains(.status), self.expectation.status?.matches(record.status) ?? true {
                matched.insert(.status)
            }
            if todo.contains(.query), self.query?.occurs(in: subject.query.span, steps: &steps) ?? true {
                matched.insert(.query)
            }
            if todo.contains(.path), self.expectation.path?.matches(subject.path, steps: &steps) ?? true {
                matched.insert(.path)
            }
            self.matched[index].formUnion(matched)
            self.known[index].formUnion(todo)
        }
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
