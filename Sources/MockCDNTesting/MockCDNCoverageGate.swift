import Foundation
import MockCDNServer
import Synchronization
import Testing

/// A gate on the contract coverage of a whole Swift Testing suite, nested suites included:
/// `@Suite(.mockCDNCoverage(failUnder: 60, surfaces: ["stream", "media"]))`.
///
/// Every server a test of the suite starts with ``MockCDNTestServer`` adds its journal's report, taken before
/// each ``RunningMockCDN/reset()`` and when it stops, to the suite's sum (as `MOCKCDN_REPORT` sums a process);
/// once the suite's last test has run, a sum that covers less than `failUnder` percent of the contract's rows
/// (of every surface, or of `surfaces`) records an issue, which fails the suite. Put it on the outermost suite
/// to gate a whole run, and before `.mockCDN` when one suite has both, so that the shared server's last report
/// is taken before the gate counts.
public struct MockCDNCoverageGate: SuiteTrait, TestScoping {
    /// The least percentage of rows the suite must cover, 0-100.
    public let failUnder: Double
    /// The surfaces counted (`stream`, `cometchat`, `media`, `s3`, `cloudfront`, `control`); nil for all.
    public let surfaces: [String]?

    /// False: the sum is the whole suite's, taken once.
    public var isRecursive: Bool { false }

    /// Runs the suite with a sum of its own, then gates on it; Swift Testing calls it.
    ///
    /// - Parameters:
    ///   - test: the suite.
    ///   - testCase: nil for a suite.
    ///   - function: the suite's tests.
    /// - Throws: what the suite throws; `CoverageReportRendering.UnknownSurface` for a surface that is none.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let sum = Sum()
        try await Sum.$current.withValue(sum) { try await function() }
        if let failure = try self.failure(of: sum.taken) {
            Issue.record(Comment(rawValue: failure))
        }
    }

    /// Why reports fail the gate, or nil when they pass it.
    ///
    /// - Parameter reports: the JSON reports of the suite's servers.
    /// - Returns: the message of the issue to record; nil when the sum covers enough.
    /// - Throws: `CoverageReportRendering.UnknownSurface` for a surface that is none.
    func failure(of reports: [Data]) throws -> String? {
        guard (0...100).contains(self.failUnder) else {
            return "mockCDNCoverage(failUnder: \(self.failUnder)): failUnder must be 0-100"
        }
        guard !reports.isEmpty else {
            return "mockCDNCoverage: no MockCDN server of the suite reported; nothing to gate"
        }
        let percent = try CoverageReportRendering.sum(merging: reports, format: "json", surfaces: self.surfaces)
            .percent
        guard percent < self.failUnder else { return nil }
        let counted = self.surfaces.map { " of " + $0.joined(separator: ",") } ?? ""
        return "MockCDN contract coverage \(percent)%\(counted) is under mockCDNCoverage(failUnder: \(self.failUnder))"
    }

    /// The reports of one gated suite's servers.
    final class Sum: Sendable {
        /// The sum of the innermost gated suite around the running test; nil outside one.
        @TaskLocal static var current: Sum?

        /// The JSON reports, in the order they were taken.
        private let reports = Mutex<[Data]>([])

        /// The reports taken so far.
        var taken: [Data] {
            self.reports.withLock { $0 }
        }

        /// Adds a server's report.
        ///
        /// - Parameter report: its JSON.
        func add(_ report: Data) {
            self.reports.withLock { $0.append(report) }
        }
    }
}

/// The `.mockCDNCoverage` trait: a coverage gate on a Swift Testing suite.
extension Trait where Self == MockCDNCoverageGate {
    /// Fails the suite when its servers' summed report covers less than `failUnder` percent of the rows.
    ///
    /// - Parameters:
    ///   - failUnder: the least percentage, 0-100.
    ///   - surfaces: the surfaces counted; nil for every surface.
    /// - Returns: the trait, for `@Suite(.mockCDNCoverage(failUnder: 60))`.
    public static func mockCDNCoverage(failUnder: Double, surfaces: [String]? = nil) -> Self {
        MockCDNCoverageGate(failUnder: failUnder, surfaces: surfaces)
    }
}
