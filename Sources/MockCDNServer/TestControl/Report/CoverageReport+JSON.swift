import Foundation

/// The report as JSON (`format=json`), and the same shape read back for `POST /_mockcdn/report`, which merges
/// reports a session fetched before each reset.
extension CoverageReport {
    /// The whole report.
    struct Document: Codable, Equatable {
        let since: String?
        let entries: Int
        let rowsTotal: Int
        let rowsCovered: Int
        let percent: Double
        let surfaces: [Surface]

        enum CodingKeys: String, CodingKey {
            case since, entries, percent, surfaces
            case rowsTotal = "rows_total"
            case rowsCovered = "rows_covered"
        }

        // `since` is written as null when there is none.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.since, forKey: .since)
            try container.encode(self.entries, forKey: .entries)
            try container.encode(self.rowsTotal, forKey: .rowsTotal)
            try container.encode(self.rowsCovered, forKey: .rowsCovered)
            try container.encode(self.percent, forKey: .percent)
            try container.encode(self.surfaces, forKey: .surfaces)
        }
    }

    /// One surface and its rows.
    struct Surface: Codable, Equatable {
        let id: String
        let title: String
        let rowsTotal: Int
        let rowsCovered: Int
        let percent: Double
        let rows: [RowDocument]

        enum CodingKeys: String, CodingKey {
            case id, title, percent, rows
            case rowsTotal = "rows_total"
            case rowsCovered = "rows_covered"
        }
    }

    /// One row: covered when `count` is above 0, `example` the first entry that matched.
    struct RowDocument: Codable, Equatable {
        let id: String
        let title: String
        let covered: Bool
        let count: Int
        let example: String?

        // `example` is written as null when there is none, as the other journal fields are.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.id, forKey: .id)
            try container.encode(self.title, forKey: .title)
            try container.encode(self.covered, forKey: .covered)
            try container.encode(self.count, forKey: .count)
            try container.encode(self.example, forKey: .example)
        }
    }

    /// The report as its JSON document.
    var document: Document {
        Document(
            since: self.since,
            entries: self.entries,
            rowsTotal: self.rows.count,
            rowsCovered: self.covered,
            percent: self.percent,
            surfaces: self.surfaces.map { surface, rows in
                let covered = rows.count { $0.covered }
                return Surface(
                    id: surface.rawValue,
                    title: surface.title,
                    rowsTotal: rows.count,
                    rowsCovered: covered,
                    percent: Self.percent(covered, of: rows.count),
                    rows: rows.map {
                        RowDocument(
                            id: $0.id,
                            title: $0.title,
                            covered: $0.covered,
                            count: $0.count,
                            example: $0.example
                        )
                    }
                )
            }
        )
    }

    /// The report as JSON text, keys in a stable order.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A document of strings, numbers and booleans always encodes.
        return String(decoding: (try? encoder.encode(self.document)) ?? Data(), as: UTF8.self)
    }

    /// Several JSON reports as one: the rows of the table, with the counts of every report added up.
    ///
    /// - Parameters:
    ///   - documents: reports as `format=json` answers them.
    ///   - table: the rows to look for.
    /// - Returns: the union.
    static func merging(_ documents: [Document], table: [ContractBehaviour] = ContractBehaviours.all) -> CoverageReport
    {
        var report = CoverageReport(entries: [], table: table)
        let counts = documents.map { document in
            Dictionary(
                document.surfaces.flatMap(\.rows).map { ($0.id, (count: $0.count, example: $0.example)) },
                uniquingKeysWith: { first, _ in first }
            )
        }
        report = report.merged(with: counts)
        report.entries = documents.reduce(0) { CoverageReport.sum($0, $1.entries) }
        report.since = documents.first?.since
        return report
    }
}
