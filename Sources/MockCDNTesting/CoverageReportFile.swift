import Foundation
import Synchronization

/// The contract coverage report a test process writes when `MOCKCDN_REPORT` names a file (`.xml` JUnit, `.md`
/// Markdown, else JSON): every server `MockCDNTestServer` starts adds its journal's report, taken before each
/// ``RunningMockCDN/reset()`` (which empties the journal) and when the server stops to the file's running sum,
/// and the file is rewritten with that sum each time a server stops, so it holds the whole process's coverage
/// at the end. A suite's ``MockCDNCoverageGate`` is given the same reports.
public enum CoverageReportFile {
    /// The report could not be read from the server or written to the file.
    public struct WriteFailure: Error, CustomStringConvertible {
        /// What failed.
        public let description: String
    }

    /// The environment variable that names the file.
    public static let environmentVariable = "MOCKCDN_REPORT"

    /// The sum of the reports taken so far in this process for each file, as JSON: one sum per file, so a
    /// report is added once however many follow.
    private static let sums = Mutex<[String: Data]>([:])

    /// A file that replaces `MOCKCDN_REPORT` within a scope, so a test of this type needs no process-wide
    /// environment variable (which every other test running at the time would see).
    @TaskLocal static var scopedPath: String?

    /// The file to write, nil when the variable is unset or empty.
    static var path: String? {
        if let scoped = Self.scopedPath { return scoped }
        guard let path = ProcessInfo.processInfo.environment[Self.environmentVariable], !path.isEmpty else {
            return nil
        }
        return path
    }

    /// Takes the server's report as it stands, when a file is to be written.
    ///
    /// - Parameter server: the running server.
    /// - Throws: what reading the report throws.
    static func take(from server: RunningMockCDN) async throws {
        // A suite's `.mockCDNCoverage` gate sums the same reports.
        let gate = MockCDNCoverageGate.Sum.current
        guard Self.path != nil || gate != nil else { return }
        let report = try await server.coverageReport(format: "json")
        gate?.add(report)
        guard let path = Self.path else { return }
        try Self.sums.withLock { sums in
            guard let sum = sums[path] else {
                sums[path] = report
                return
            }
            sums[path] = Data(try CoverageReportRendering.render(merging: [sum, report], format: "json").utf8)
        }
    }

    /// Takes the server's last report and writes the sum of every report taken to the file.
    ///
    /// - Parameter server: the server about to stop.
    /// - Throws: ``WriteFailure`` naming what failed.
    static func write(from server: RunningMockCDN) async throws {
        guard let path = Self.path else {
            try await Self.take(from: server)
            return
        }
        do {
            try await Self.take(from: server)
            try Self.sums.withLock { sums in
                let text = try CoverageReportRendering.render(
                    merging: sums[path].map { [$0] } ?? [],
                    format: CoverageReportRendering.format(forPath: path)
                )
                try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            }
        } catch {
            throw WriteFailure(description: "\(Self.environmentVariable)=\(path): \(error)")
        }
    }
}
