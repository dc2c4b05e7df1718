import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `POST /_mockcdn/verify`: did the server answer the requests a test expects?
extension RunningMockCDN {
    /// Checks the journal against a list of expectations; a test that `try`s it fails with the server's
    /// near-miss report when one is unmet.
    ///
    /// ```swift
    /// try await server.verify([
    ///     RequestExpectation(method: "GET", path: "/demo/**", credential: "fat-header", status: 200),
    ///     RequestExpectation(path: "/demo/**", status: .inClass(4), count: .exactly(0)),
    /// ])
    /// ```
    ///
    /// - Parameters:
    ///   - expectations: 1 to 100 expectations.
    ///   - ordered: each expectation must be met after the previous one's last match.
    ///   - since: only journal entries after this id (`r12`) are judged; nil for all.
    /// - Returns: the ids of the entries each expectation matched, in order.
    /// - Throws: ``MockCDNTestServer/VerificationFailure`` (its description is the report) when an
    ///   expectation is unmet; ``MockCDNTestServer/ControlError`` when the server refuses the document (400)
    ///   or answers anything else; URLSession's error when it cannot be reached.
    @discardableResult
    public func verify(
        _ expectations: [RequestExpectation],
        ordered: Bool = false,
        since: String? = nil
    ) async throws -> [[String]] {
        struct Document: Encodable {
            let expectations: [RequestExpectation]
            let ordered: Bool
            let since: String?
        }
        struct Answer: Decodable {
            struct Outcome: Decodable { let matched: [String] }
            let expectations: [Outcome]
            let report: String
        }
        let body = try JSONEncoder().encode(Document(expectations: expectations, ordered: ordered, since: since))
        let (data, status) = try await self.controlAnswer("POST", "/_mockcdn/verify", body: body)
        guard status == 200 || status == 409 else {
            throw MockCDNTestServer.ControlError(
                status: status,
                message: "POST /_mockcdn/verify: \(String(decoding: data.prefix(300), as: UTF8.self))"
            )
        }
        let answer = try JSONDecoder().decode(Answer.self, from: data)
        guard status == 200 else { throw MockCDNTestServer.VerificationFailure(report: answer.report) }
        return answer.expectations.map(\.matched)
    }
}

extension MockCDNTestServer {
    /// An expectation of ``RunningMockCDN/verify(_:ordered:since:)`` was not met: the description is the
    /// server's report, each unmet expectation with the journal entries that came closest and what differed.
    public struct VerificationFailure: Error, CustomStringConvertible {
        /// The report, as `POST /_mockcdn/verify` words it.
        public let report: String
        /// The report.
        public var description: String { self.report }
    }
}
