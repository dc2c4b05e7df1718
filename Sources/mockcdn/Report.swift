import ArgumentParser
import Foundation
import MockCDNServer

/// `mockcdn report`: print a running server's contract coverage report (and gate on it), or list the table's
/// rows.
struct Report: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print which contract behaviours a running MockCDN's journal exercised; a CI gate with --fail-under.",
        discussion: """
            The report reads the server's request journal (since its last reset) against the table of
            contract behaviours in docs/report.md, or adds up the JSON reports a test helper wrote (--from,
            e.g. pytest --mockcdn-report coverage.json). --fail-under exits 1 when fewer rows are covered, of
            every surface or of those --surfaces names.

            Examples:
              mockcdn report --url http://127.0.0.1:8080
              mockcdn report --url http://127.0.0.1:8080 --format junit > coverage.xml
              mockcdn report --url http://127.0.0.1:8080 --format markdown --fail-under 80
              mockcdn report --from coverage.json --surfaces stream,media --fail-under 60
              mockcdn report --list
            """
    )

    /// The formats the server renders.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, markdown, junit
    }

    @Option(help: "The server, http://HOST:PORT.")
    var url: String?

    @Option(help: "A JSON report a helper wrote, instead of --url; repeat to add several up.")
    var from: [String] = []

    @Option(help: "The surfaces --fail-under counts, comma-separated (stream,cometchat,media,s3,cloudfront,control).")
    var surfaces: String?

    @Option(help: "json, markdown or junit.")
    var format: Format = .markdown

    @Option(help: "Read the journal from this entry on (r12).")
    var since: String?

    @Option(help: "Exit 1 when the percentage of rows covered is below this (0-100).")
    var failUnder: Double?

    @Option(help: "The admin token, for a server off loopback (default: $MOCKCDN_ADMIN_TOKEN).")
    var adminToken: String?

    @Flag(help: "Print the table of rows as Markdown (what docs/report.md holds) and exit.")
    var list = false

    /// `--url` unless `--list`; `--fail-under` within 0-100.
    func validate() throws {
        if !self.list, (self.url == nil) == self.from.isEmpty {
            throw ValidationError("give either --url or --from (or --list)")
        }
        if let failUnder, !(0...100).contains(failUnder) { throw ValidationError("--fail-under must be 0-100") }
        if let surfaces, !surfaces.contains(where: { $0 != "," }) {
            throw ValidationError("--surfaces names no surface; name one or more, comma-separated")
        }
        if !self.from.isEmpty, self.since != nil {
            throw ValidationError("--since reads a server's journal; a report file is read whole")
        }
    }

    /// Prints the table, or the report; exits 1 below `--fail-under`.
    func run() async throws {
        if self.list {
            print(ContractBehaviours.markdownTable, terminator: "")
            return
        }
        let surfaces = self.surfaces.map { $0.split(separator: ",").map { String($0) } }
        let answer: ServerReport.Answer
        if self.from.isEmpty {
            answer = try await ServerReport.fetch(
                from: self.url ?? "",
                format: self.format.rawValue,
                since: self.since,
                surfaces: surfaces,
                adminToken: self.adminToken ?? ProcessInfo.processInfo.environment["MOCKCDN_ADMIN_TOKEN"]
            )
        } else {
            answer = try ServerReport.sum(of: self.from, format: self.format.rawValue, surfaces: surfaces)
        }
        print(answer.text, terminator: answer.text.hasSuffix("\n") ? "" : "\n")
        if let failUnder, answer.percent < failUnder {
            FileHandle.standardError.write(
                Data(
                    ("mockcdn report: \(answer.percent)% of rows" + (self.surfaces.map { " of \($0)" } ?? "")
                        + " covered, below --fail-under \(failUnder)\n").utf8
                )
            )
            throw ExitCode(1)
        }
    }
}
