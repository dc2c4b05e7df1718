import Foundation
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
    ///   - adminToken: sent as a bearer token, for a server off loopback.
    /// - Returns: the report's text and percentage.
    /// - Throws: `ControlGet.Failure` naming what went wrong.
    static func fetch(from server: String, format: String, since: String?, adminToken: String?) async throws -> Answer {
        let sinceItem = since.map {
            "&since=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        }
        let answer = try await ControlGet.fetch(
            "/_mockcdn/report?format=\(format)" + (sinceItem ?? ""),
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
        return Answer(text: text, percent: percent)
    }
}
