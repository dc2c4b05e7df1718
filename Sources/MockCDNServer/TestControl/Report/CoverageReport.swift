import Foundation

/// Which rows of `ContractBehaviours` a set of journal entries exercised: per row, how many entries and the
/// first one's id; per surface and in all, the share of rows covered.
struct CoverageReport: Sendable, Equatable {
    /// One row's outcome.
    struct Row: Sendable, Equatable {
        /// The row's id in `ContractBehaviours`.
        let id: String
        /// The surface it is reported under.
        let surface: ContractSurface
        /// What the behaviour is.
        let title: String
        /// How many entries matched.
        var count: Int
        /// The first entry that matched, nil when none did.
        var example: String?

        /// Whether any entry exercised the row.
        var covered: Bool { self.count > 0 }
    }

    /// The rows, in table order.
    var rows: [Row]
    /// How many journal entries were read.
    var entries: Int
    /// The first entry the report reads from (`since=`), nil for the whole journal.
    var since: String?

    /// A report of the entries, against the table.
    ///
    /// - Parameters:
    ///   - entries: journal entries, oldest first.
    ///   - table: the rows to look for.
    ///   - since: the `since=` the entries were cut at, to show in the report.
    init(entries: [JournalRecord], table: [ContractBehaviour] = ContractBehaviours.all, since: String? = nil) {
        self.rows = table.map { behaviour in
            var count = 0
            var example: String?
            for entry in entries where behaviour.matches(entry) {
                count += 1
                if example == nil { example = entry.id }
            }
            return Row(
                id: behaviour.id,
                surface: behaviour.surface,
                title: behaviour.title,
                count: count,
                example: example
            )
        }
        self.entries = entries.count
        self.since = since
    }

    /// Rows covered, out of all.
    var covered: Int { self.rows.count { $0.covered } }

    /// The share of rows covered, percent, to one decimal.
    var percent: Double { Self.percent(self.covered, of: self.rows.count) }

    /// The share of the rows of `surfaces` covered, percent, to one decimal: the gate of an app that uses only
    /// some of the surfaces.
    ///
    /// - Parameter surfaces: the surfaces counted; nil for all.
    /// - Returns: the percentage.
    func percent(of surfaces: Set<ContractSurface>?) -> Double {
        guard let surfaces else { return self.percent }
        let rows = self.rows.filter { surfaces.contains($0.surface) }
        return Self.percent(rows.count { $0.covered }, of: rows.count)
    }

    /// The surfaces with rows, in table order, each with its rows.
    var surfaces: [(surface: ContractSurface, rows: [Row])] {
        ContractSurface.allCases.compactMap { surface in
            let rows = self.rows.filter { $0.surface == surface }
            return rows.isEmpty ? nil : (surface, rows)
        }
    }

    /// `part` of `whole` in percent, to one decimal; 100 for an empty whole.
    ///
    /// - Parameters:
    ///   - part: how many.
    ///   - whole: out of how many.
    /// - Returns: the percentage.
    static func percent(_ part: Int, of whole: Int) -> Double {
        whole == 0 ? 100 : (Double(part) * 1000 / Double(whole)).rounded() / 10
    }

    /// The union of this report and others (the reports a test session fetched before each reset): counts
    /// added, the first example kept, entries added. Rows are taken from this report's table; a row id
    /// another report has and this table lacks is ignored.
    ///
    /// - Parameter others: rows by id, with their counts and examples.
    /// - Returns: the merged report.
    func merged(with others: [[String: (count: Int, example: String?)]]) -> CoverageReport {
        var merged = self
        for other in others {
            for index in merged.rows.indices {
                guard let row = other[merged.rows[index].id], row.count > 0 else { continue }
                merged.rows[index].count = Self.sum(merged.rows[index].count, row.count)
                if merged.rows[index].example == nil { merged.rows[index].example = row.example }
            }
        }
        return merged
    }

    /// Two counts added, as counts read from a client are: a negative one is 0, and the sum stops at
    /// `Int.max` instead of overflowing.
    static func sum(_ first: Int, _ second: Int) -> Int {
        let (total, overflow) = max(0, first).addingReportingOverflow(max(0, second))
        return overflow ? .max : total
    }
}
