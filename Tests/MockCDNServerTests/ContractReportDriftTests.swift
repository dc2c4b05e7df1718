import Foundation
import Testing
import Yams

@testable import MockCDNServer

@Suite("Contract coverage: docs/report.md and openapi.yaml list the code's rows")
struct ContractReportDriftTests {
    static let fix = "run scripts/update-contract-rows.py after a swift build"

    @Test("docs/report.md holds `mockcdn report --list` between its markers")
    func docs() throws {
        let text = try String(contentsOf: Fixture.url("../docs/report.md").standardizedFileURL, encoding: .utf8)
        let section = try #require(ContractBehaviours.generatedSection(of: text), "docs/report.md has no markers")
        #expect(section == ContractBehaviours.markdownTable, "docs/report.md differs from the code: \(Self.fix)")
    }

    @Test("openapi.yaml's ContractRowId enum is the table's ids, in order")
    func openAPI() throws {
        let text = try String(contentsOf: Fixture.url("../openapi.yaml").standardizedFileURL, encoding: .utf8)
        let document = try #require(try Yams.load(yaml: text) as? [String: Any])
        let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let rowID = try #require(schemas?["ContractRowId"] as? [String: Any])
        #expect(rowID["enum"] as? [String] == ContractBehaviours.ids, "openapi.yaml differs from the code: \(Self.fix)")
        #expect(ContractBehaviours.generatedSection(of: text) == ContractBehaviours.yamlEnum(indent: 8))
    }

    @Test("a section that differs is found", arguments: ["", "| `x` | y | z | w |\n"])
    func detects(extra: String) {
        let start = "<!-- \(ContractBehaviours.startMarker) -->\n"
        let end = "<!-- \(ContractBehaviours.endMarker) -->\n"
        let document = "intro\n" + start + ContractBehaviours.markdownTable + extra + end + "after\n"
        #expect(
            (ContractBehaviours.generatedSection(of: document) == ContractBehaviours.markdownTable) == extra.isEmpty
        )
        #expect(ContractBehaviours.generatedSection(of: "no markers\n") == nil)
    }
}
