import Foundation
import MockCDNServer
import NIOCore
import NIOHTTP1

/// The coverage report of a running MockCDN (`GET /_mockcdn/report`), read with `ControlGet`.
enum ServerReport {
    /// How long the whole exchange may take.
    static let timeLimit: TimeAmount = .seconds(30)
    /// The most bytes of report read (a report of every row in any format is a few tens of KiB).
    static let maximumBytes = 4 * 1024 * 1024

    /// A report and the percentage of rows it covers (`X-MockCDN-Coverage`).
    struct Answer: Sendable {
        let text: String
        let percent: Double
    }

    /// Fetches the report.
    ///
    /// - Parameters:
    ///   - server: `http://HOST:PORT`.
    ///   - format: `json`, `markdown` or `junit`.
    ///   - since: an entry id to read the journal from, or nil.
    ///   - surfaces: the surfaces the percentage counts; nil for all (the server's `X-MockCDN-Coverage`).
    ///   - adminToken: sent as a bearer token, for a server off loopback.
    /// - Returns: the report's text and percentage.
    /// - Throws: `ControlGet.Failure` naming what went wrong.
    static func fetch(
        from server: String,
        format: String,
        since: String?,
        surfaces: [String]? = nil,
        adminToken: String?
    ) async throws -> Answer {
        let sinceItem = since.map {
            "&since=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        }
        let answer = try await ControlGet.fetch(
            // With surfaces, the JSON report, rendered here: the text and the share come from one read of the
            // journal.
            "/_mockcdn/report?format=\(surfaces == nil ? format : "json")" + (sinceItem ?? ""),
            from: server,
            option: "--url",
            adminToken: adminToken,
            timeLimit: self.timeLimit,
            maximumBytes: self.maximumBytes
        )
        let text = String(decoding: answer.body.readableBytesView, as: UTF8.self)
        guard answer.status == 200, let percent = answer.headers.first(name: "X-MockCDN-Coverage").flatMap(Double.init)
        else {
            throw ControlGet.Failure(
                description: "--url \(server): GET /_mockcdn/report answered \(answer.status): \(text.prefix(300))"
            )
        }
        guard let surfaces else { return Answer(text: text, percent: percent) }
        return try Self.sum([Data(text.utf8)], named: ["--url " + server], surfaces: surfaces, format: format)
    }

    /// The JSON reports in `paths` (as the helpers write them: `pytest --mockcdn-report coverage.json`, a
    /// `MOCKCDN_REPORT` file) added up and rendered.
    ///
    /// - Parameters:
    ///   - paths: the files.
    ///   - format: `json`, `markdown` or `junit`.
    ///   - surfaces: the surfaces the percentage counts; nil for all.
    /// - Returns: the sum's text and percentage.
    /// - Throws: `ControlGet.Failure` naming a file that cannot be read or is no JSON report, or a surface
    ///   that is none.
    static func sum(of paths: [String], format: String, surfaces: [String]?) throws -> Answer {
        let reports = try paths.map { path in
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ControlGet.Failure(description: "--from \(path): cannot be read")
            }
            return data
        }
        return try Self.sum(reports, named: paths.map { "--from " + $0 }, surfaces: surfaces, format: format)
    }

    private static func sum(
        _ reports: [Data],
        named names: [String],
        surfaces: [String]?,
        format: String
    ) throws -> Answer {
        do {
            let sum = try CoverageReportRendering.sum(merging: reports, format: format, surfaces: surfaces)
            return Answer(text: sum.text, percent: sum.percent)
        } catch let unknown as CoverageReportRendering.UnknownSurface {
            throw ControlGet.Failure(description: "--surfaces: \(unknown)")
        } catch {
            throw ControlGet.Failure(
                description: "\(names.joined(separator: ", ")): not a JSON coverage report (format=json)"
            )
        }
    }
}
