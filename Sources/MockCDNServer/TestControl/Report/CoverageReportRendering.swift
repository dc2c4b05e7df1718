import Foundation

/// Coverage reports rendered outside the server: `MockCDNTesting` adds up the JSON reports of every server a
/// test process started and writes them as one file, with the renderers `GET /_mockcdn/report` uses.
public enum CoverageReportRendering {
    /// The formats, named as `format=` names them.
    public static let formats = ["json", "markdown", "junit"]

    /// The format a file name asks for: `junit` for `.xml`, `markdown` for `.md`, else `json`.
    ///
    /// - Parameter path: the file's path.
    /// - Returns: the format's name.
    public static func format(forPath path: String) -> String {
        if path.hasSuffix(".xml") { return "junit" }
        if path.hasSuffix(".md") { return "markdown" }
        return "json"
    }

    /// JSON reports (as `format=json` answers them) added up row by row and rendered.
    ///
    /// - Parameters:
    ///   - reports: the JSON bodies.
    ///   - format: `json`, `markdown` or `junit`.
    /// - Returns: the text of the sum.
    /// - Throws: `DecodingError` for a body that is not a report; `CocoaError` for an unknown format.
    public static func render(merging reports: [Data], format: String) throws -> String {
        guard let format = ReportFormat(rawValue: format) else { throw CocoaError(.formatting) }
        let documents = try reports.map { try JSONDecoder().decode(CoverageReport.Document.self, from: $0) }
        return format.render(CoverageReport.merging(documents))
    }
}
