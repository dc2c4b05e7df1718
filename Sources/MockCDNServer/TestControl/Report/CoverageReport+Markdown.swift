/// The report as Markdown (`format=markdown`): a summary line, then one table per surface.
extension CoverageReport {
    /// The report as Markdown text.
    var markdown: String {
        var lines = [
            "# MockCDN contract coverage",
            "",
            "\(self.covered) of \(self.rows.count) behaviours covered (\(Self.formatted(self.percent))%), "
                + "from \(self.entries) journal entries" + (self.since.map { " since \($0)" } ?? "") + ".",
        ]
        for (surface, rows) in self.surfaces {
            let covered = rows.count { $0.covered }
            lines += [
                "",
                "## \(surface.title): \(covered) of \(rows.count) (\(Self.formatted(Self.percent(covered, of: rows.count)))%)",
                "",
                "| | row | behaviour | count | example |",
                "|---|---|---|---|---|",
            ]
            lines += rows.map { row in
                "| \(row.covered ? "✅" : "❌") | `\(row.id)` | \(row.title) | \(row.count) | \(row.example ?? "") |"
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A percentage as the text shows it: `50` or `12.5`.
    static func formatted(_ percent: Double) -> String {
        percent == percent.rounded() ? String(Int(percent)) : String(percent)
    }
}
