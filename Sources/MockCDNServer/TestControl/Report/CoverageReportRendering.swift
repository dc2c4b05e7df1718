import Foundation
import MockCDNCore

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
        try Self.sum(merging: reports, format: format).text
    }

    /// JSON reports (as `format=json` answers them, or as a helper wrote them) added up row by row, rendered,
    /// and the share of rows the sum covers: what `mockcdn report --from` prints and gates on.
    ///
    /// - Parameters:
    ///   - reports: the JSON bodies.
    ///   - format: `json`, `markdown` or `junit`.
    ///   - surfaces: the surfaces the share counts (`stream`, `cometchat`, `media`, `s3`, `cloudfront`,
    ///     `control`); nil for all.
    /// - Returns: the text of the sum and its percentage.
    /// - Throws: `DecodingError` for a body that is not a report; `CocoaError` for an unknown format;
    ///   `UnknownSurface` for a surface no report has.
    public static func sum(
        merging reports: [Data],
        format: String,
        surfaces: [String]? = nil
    ) throws -> (text: String, percent: Double) {
        guard let format = ReportFormat(rawValue: format) else { throw CocoaError(.formatting) }
        let counted = try surfaces.map { names in
            // No surface at all would be a share of nothing: 100%, a gate that always passes.
            guard !names.isEmpty else { throw UnknownSurface(name: "") }
            return Set(
                try names.map { name in
                    guard let surface = ContractSurface(rawValue: name) else { throw UnknownSurface(name: name) }
                    return surface
                }
            )
        }
        let documents = try reports.map { try JSONDecoder().decode(CoverageReport.Document.self, from: $0) }
        let report = CoverageReport.merging(documents)
        return (format.render(report), report.percent(of: counted))
    }

    /// A surface name that is none of the report's, or an empty list of them.
    public struct UnknownSurface: CategorizedError, CustomStringConvertible {
        /// The name given.
        public let name: String
        /// `NAME is not a surface; the surfaces are stream, ...` (`no surface named; ...` for an empty list).
        public var description: String {
            (self.name.isEmpty ? "no surface named" : "\(self.name) is not a surface") + "; the surfaces are "
                + ContractSurface.allCases.map(\.rawValue).joined(separator: ", ")
        }
        /// A bad argument.
        public var category: ErrorCategory { .invalidInput }
        /// The description: it names only what was given and the surfaces.
        public var publicMessage: String { self.description }
    }
}
