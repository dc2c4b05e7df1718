import HTTPTypes

/// The formats `GET /_mockcdn/report` answers in.
enum ReportFormat: String, CaseIterable, Sendable {
    /// `CoverageReport.Document` as JSON.
    case json
    /// A summary line and a table per surface.
    case markdown
    /// JUnit XML: a suite per surface, a case per row.
    case junit

    /// The answer's `Content-Type`.
    var contentType: String {
        switch self {
        case .json: "application/json; charset=utf-8"
        case .markdown: "text/markdown; charset=utf-8"
        case .junit: "application/xml; charset=utf-8"
        }
    }

    /// A report rendered in this format.
    ///
    /// - Parameter report: the report.
    /// - Returns: its text.
    func render(_ report: CoverageReport) -> String {
        switch self {
        case .json: report.json
        case .markdown: report.markdown
        case .junit: report.junit
        }
    }

    /// The header that carries the percentage covered on every answer, so a gate reads it whatever the format.
    static let coverageHeader = HTTPField.Name("X-MockCDN-Coverage")!
}
