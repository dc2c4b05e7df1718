import Foundation
import MockCDNTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `RunningMockCDN.verify`: the ids of met expectations, and an unmet one thrown as a failure whose
/// description is the server's near-miss report, as a failed `try` prints it.
@Suite("MockCDNTesting verify")
struct VerifyHarnessTests {
    static func status(of url: URL) async throws -> Int {
        let (_, response) = try await URLSession.shared.data(from: url)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test("met expectations return the ids they matched; an unmet one throws the near-miss report")
    func verify() async throws {
        try await MockCDNTestServer.withRunning { server in
            let client = server.client()
            let media = server.url("/demo/fixtures/sample.png")
            let link = try await client.presigned.fetchPresignedURL(for: media)
            #expect(try await Self.status(of: link) == 200)
            let journal = try await server.journal()
            let matched = try await server.verify(
                [
                    RequestExpectation(method: "POST", path: "/v1/apps/demo/presign", status: 200),
                    RequestExpectation(method: "GET", path: "/demo/**", credential: "presigned", status: 200),
                    RequestExpectation(status: .inClass(4), count: .exactly(0)),
                ],
                ordered: true
            )
            #expect(matched == [[journal[0].id], [journal[1].id], []])

            // Past the link's 300 s by three minutes of the server's clock.
            server.advanceClock(seconds: 300 + 180)
            #expect(try await Self.status(of: link) == 403)
            let refusal = try #require(try await server.journal(status: 403).first)
            #expect(refusal.reason == "AccessDenied: Request has expired")
            #expect(try (refusal.clock - #require(refusal.expiredAt)) >= 180)
            let failure = await #expect(throws: MockCDNTestServer.VerificationFailure.self) {
                try await server.verify(
                    [RequestExpectation(path: "/demo/**", credential: "presigned", status: 200, count: .atLeast(2))]
                )
            }
            let report = try #require(failure).description
            #expect(report.hasPrefix("MockCDN verify: 1 of 1 expectations not met\n"))
            #expect(
                report.contains(
                    "path matched, but credential `none` where `presigned` was expected; status 403 where 200 was "
                        + "expected: the credential expired 3 min"
                ),
                "\(report)"
            )
            // A document the server refuses is a control error naming the member.
            let refused = await #expect(throws: MockCDNTestServer.ControlError.self) {
                try await server.verify([RequestExpectation(credential: "fat")])
            }
            #expect(refused?.status == 400)
        }
    }
}
