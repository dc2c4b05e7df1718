import MockCDNCore

/// The report as JUnit XML (`format=junit`), for CI systems that show test results: one `<testsuite>` per
/// surface, one `<testcase>` per row. A row never exercised is `<skipped>`, not `<failure>`: it is a gap in
/// the client's suite, not a broken behaviour, and many CI systems turn any failure red; the gate is
/// `mockcdn report --fail-under`. A covered row's count and example go in its `<system-out>`. Only attributes
/// the common JUnit schema (Jenkins' `junit-10.xsd`) has are written: `skipped` on each `<testsuite>`, not on
/// `<testsuites>`.
extension CoverageReport {
    /// The report as JUnit XML text.
    var junit: String {
        let total = self.rows.count
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="MockCDN contract coverage" tests="\#(total)" failures="0" errors="0" time="0">"#,
        ]
        for (surface, rows) in self.surfaces {
            let uncovered = rows.count { !$0.covered }
            lines.append(
                #"  <testsuite name="\#(surface.rawValue)" tests="\#(rows.count)" failures="0" errors="0" "#
                    + #"skipped="\#(uncovered)" time="0">"#
            )
            for row in rows {
                let name =
                    #"<testcase classname="mockcdn.\#(surface.rawValue)" name="\#(XMLText.escaped(row.id))" time="0""#
                if let example = row.example, row.covered {
                    lines.append("    \(name)>")
                    lines.append(
                        "      <system-out>\(XMLText.escaped(row.title)): \(row.count) requests, first \(XMLText.escaped(example))</system-out>"
                    )
                    lines.append("    </testcase>")
                } else {
                    lines.append("    \(name)>")
                    lines.append(#"      <skipped message="never exercised: \#(XMLText.escaped(row.title))"/>"#)
                    lines.append("    </testcase>")
                }
            }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }
}
