import Hummingbird
import NIOCore

/// `GET /_mockcdn/report`: which rows of `ContractBehaviours` the journal exercised, as JSON, Markdown or
/// JUnit XML; `POST /_mockcdn/report`: reports fetched earlier (before a reset) merged and rendered.
struct ReportController {
    /// The journal the report reads.
    let journal: Journal

    /// The query parameters the report routes take; any other is refused by name.
    static let parameters: Set<String> = ["format", "since"]

    /// What `POST /_mockcdn/report` takes: reports as `format=json` answered them.
    struct MergeRequest: Decodable {
        /// The reports to add up.
        let reports: [CoverageReport.Document]
    }

    /// Adds `GET` and `POST /_mockcdn/report` to the control group.
    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.get("report") { request, context in
            let query = context.query(of: request)
            let format = try Self.format(query)
            var since: Int?
            if let text = query.first("since") {
                guard let number = JournalRecord.number(of: text) else {
                    throw HTTPError(.badRequest, message: "since must be a journal entry id such as r12")
                }
                since = number
            }
            let entries = self.journal.entries.map(JournalRecord.init).filter { entry in
                since.map { entry.number >= $0 } ?? true
            }
            return Self.answer(CoverageReport(entries: entries, since: query.first("since")), format: format)
        }
        group.post("report") { request, context in
            let format = try Self.format(context.query(of: request))
            let body = try await request.decodeJSONBody(MergeRequest.self, upTo: Self.maximumMergeBytes)
            return Self.answer(CoverageReport.merging(body.reports), format: format)
        }
    }

    /// The most bytes of reports merged at once: a JSON report is about 9 KB, so a session's several hundred
    /// (one per reset).
    static let maximumMergeBytes = 8 << 20

    /// The `format` asked for (default `json`).
    ///
    /// - Parameter query: the request's query.
    /// - Returns: the format.
    /// - Throws: `HTTPError` 400 for an unknown parameter or format.
    static func format(_ query: QueryItems) throws -> ReportFormat {
        if let unknown = query.firstName(notIn: Self.parameters) {
            throw HTTPError(
                .badRequest,
                message: "unknown parameter \(unknown.prefix(64)); the parameters are format and since"
            )
        }
        guard let text = query.first("format") else { return .json }
        guard let format = ReportFormat(rawValue: text.lowercased()) else {
            throw HTTPError(.badRequest, message: "format must be json, markdown or junit")
        }
        return format
    }

    /// The report in a format, with the percentage covered in `X-MockCDN-Coverage`.
    static func answer(_ report: CoverageReport, format: ReportFormat) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: format.contentType,
                ReportFormat.coverageHeader: CoverageReport.formatted(report.percent),
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: format.render(report)))
        )
    }
}
