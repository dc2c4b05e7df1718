/// The table as the docs and the OpenAPI document show it: `mockcdn report --list` prints these, and a test
/// compares them with `docs/report.md` and `openapi.yaml` between their markers.
extension ContractBehaviours {
    /// The markers around the generated rows in `docs/report.md` and `openapi.yaml` (a comment in each).
    public static let startMarker = "contract-rows:start"
    /// The end marker.
    public static let endMarker = "contract-rows:end"

    /// Every row as a Markdown table: id, surface, behaviour and how a journal entry is recognised.
    public static var markdownTable: String {
        var lines = ["| row | surface | behaviour | recognised in the journal by |", "|---|---|---|---|"]
        lines += all.map { "| `\($0.id)` | \($0.surface.rawValue) | \($0.title) | \($0.rule) |" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The row ids as the items of a YAML list at an indentation (the `enum` of `ContractRowId` in
    /// `openapi.yaml`).
    ///
    /// - Parameter indent: spaces before each `- `.
    /// - Returns: one line per id.
    public static func yamlEnum(indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        return all.map { "\(pad)- \($0.id)\n" }.joined()
    }

    /// The text between the start and end marker lines of a document (the marker lines excluded), nil when
    /// either marker is missing.
    ///
    /// - Parameter document: the whole text.
    /// - Returns: the lines between the markers, each ending in a newline.
    public static func generatedSection(of document: String) -> String? {
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.contains(startMarker) }),
            let end = lines[start...].firstIndex(where: { $0.contains(endMarker) })
        else { return nil }
        return lines[(start + 1)..<end].map { $0 + "\n" }.joined()
    }
}
