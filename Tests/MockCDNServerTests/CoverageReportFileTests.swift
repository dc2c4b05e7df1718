import Foundation
import Testing

@testable import MockCDNServer
@testable import MockCDNTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Contract coverage: MOCKCDN_REPORT writes the report of a MockCDNTesting server")
struct CoverageReportFileTests {
    @Test("the file names its format by extension")
    func formats() {
        #expect(CoverageReportRendering.format(forPath: "/tmp/a.xml") == "junit")
        #expect(CoverageReportRendering.format(forPath: "/tmp/a.md") == "markdown")
        #expect(CoverageReportRendering.format(forPath: "/tmp/a.json") == "json")
        #expect(throws: (any Error).self) { try CoverageReportRendering.render(merging: [], format: "xml") }
    }

    @Test("the report holds what the server saw before and after a reset")
    func acrossReset() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("coverage-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await CoverageReportFile.$scopedPath.withValue(path) {
            try await MockCDNTestServer.withRunning { server in
                var read = URLRequest(url: server.url("/demo/fixtures/sample.png"))
                read.setValue(server.fileAccessToken(user: "ana"), forHTTPHeaderField: "fat")
                let (_, first) = try await URLSession.shared.data(for: read)
                #expect((first as? HTTPURLResponse)?.statusCode == 200)
                try await server.reset()
                let (_, second) = try await URLSession.shared.data(from: server.url("/demo/fixtures/sample.png"))
                #expect((second as? HTTPURLResponse)?.statusCode == 401)
            }
        }
        let document = try JSONDecoder().decode(
            CoverageReport.Document.self,
            from: Data(contentsOf: URL(fileURLWithPath: path))
        )
        let covered = Set(document.surfaces.flatMap(\.rows).filter(\.covered).map(\.id))
        #expect(covered == ["cometchat.credential.fat-header", "media.status.200", "media.refused.missing"])
        #expect(document.entries == 2)
    }

    @Test("each file holds the sum of its own servers only, however many servers write to it")
    func oneSumPerFile() async throws {
        let folder = FileManager.default.temporaryDirectory
        let (first, second) = (
            folder.appendingPathComponent("coverage-\(UUID()).json").path,
            folder.appendingPathComponent("coverage-\(UUID()).json").path
        )
        defer { for path in [first, second] { try? FileManager.default.removeItem(atPath: path) } }
        for (path, reads) in [(first, 3), (second, 1)] {
            for _ in 0..<reads {
                try await CoverageReportFile.$scopedPath.withValue(path) {
                    try await MockCDNTestServer.withRunning { server in
                        let (_, answer) = try await URLSession.shared.data(
                            from: server.url("/demo/fixtures/sample.png")
                        )
                        #expect((answer as? HTTPURLResponse)?.statusCode == 401)
                    }
                }
            }
        }
        let entries = try [first, second].map {
            try JSONDecoder().decode(CoverageReport.Document.self, from: Data(contentsOf: URL(fileURLWithPath: $0)))
                .entries
        }
        #expect(entries == [3, 1])
    }

    /// A FAT read of a fixture (200) and a read without one (401), on `server`.
    private static func twoReads(_ server: RunningMockCDN) async throws {
        var read = URLRequest(url: server.url("/demo/fixtures/sample.png"))
        read.setValue(server.fileAccessToken(user: "ana"), forHTTPHeaderField: "fat")
        let (_, first) = try await URLSession.shared.data(for: read)
        #expect((first as? HTTPURLResponse)?.statusCode == 200)
        let (_, second) = try await URLSession.shared.data(from: server.url("/demo/fixtures/sample.png"))
        #expect((second as? HTTPURLResponse)?.statusCode == 401)
    }

    @Test("a coverage gate's suite sums every server's report, taken before each reset and at the stop")
    func gateSumsTheSuite() async throws {
        let sum = MockCDNCoverageGate.Sum()
        try await MockCDNCoverageGate.Sum.$current.withValue(sum) {
            try await MockCDNTestServer.withRunning { server in
                try await Self.twoReads(server)
                try await server.reset()
                try await Self.twoReads(server)
            }
            try await MockCDNTestServer.withRunning { server in try await Self.twoReads(server) }
        }
        let reports = sum.taken
        // Before the reset, at the first server's stop, at the second's.
        #expect(reports.count == 3)
        let total = try JSONDecoder().decode(
            CoverageReport.Document.self,
            from: Data(try CoverageReportRendering.render(merging: reports, format: "json").utf8)
        )
        #expect(total.entries == 6)
    }

    @Test("a coverage gate fails a suite under its share, of every surface or of the ones it names")
    func gateVerdicts() async throws {
        let sum = MockCDNCoverageGate.Sum()
        try await MockCDNCoverageGate.Sum.$current.withValue(sum) {
            try await MockCDNTestServer.withRunning { server in try await Self.twoReads(server) }
        }
        let reports = sum.taken
        let all = try CoverageReportRendering.sum(merging: reports, format: "json").percent
        let media = try CoverageReportRendering.sum(merging: reports, format: "json", surfaces: ["media"]).percent
        #expect(all > 0 && media > all)
        #expect(try MockCDNCoverageGate(failUnder: all, surfaces: nil).failure(of: reports) == nil)
        #expect(
            try MockCDNCoverageGate(failUnder: all + 0.1, surfaces: nil).failure(of: reports)
                == "MockCDN contract coverage \(all)% is under mockCDNCoverage(failUnder: \(all + 0.1))"
        )
        #expect(try MockCDNCoverageGate(failUnder: media, surfaces: ["media"]).failure(of: reports) == nil)
        #expect(
            try MockCDNCoverageGate(failUnder: 100, surfaces: ["media"]).failure(of: reports)
                == "MockCDN contract coverage \(media)% of media is under mockCDNCoverage(failUnder: 100.0)"
        )
        #expect(try MockCDNCoverageGate(failUnder: 101, surfaces: nil).failure(of: reports)?.contains("0-100") == true)
        #expect(try MockCDNCoverageGate(failUnder: 0, surfaces: nil).failure(of: [])?.contains("no MockCDN") == true)
        #expect(throws: CoverageReportRendering.UnknownSurface.self) {
            try MockCDNCoverageGate(failUnder: 10, surfaces: ["videos"]).failure(of: reports)
        }
    }

    @Test("a gated suite under its share records an issue once its tests have run; one over it records none")
    func gateRecordsAnIssue() async throws {
        let test = try #require(Test.current)
        let under = MockCDNCoverageGate(failUnder: 100, surfaces: nil)
        try await withKnownIssue {
            try await under.provideScope(for: test, testCase: nil) {
                try await MockCDNTestServer.withRunning { server in try await Self.twoReads(server) }
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("MockCDN contract coverage ") }
        }
        try await MockCDNCoverageGate(failUnder: 0, surfaces: nil).provideScope(for: test, testCase: nil) {
            try await MockCDNTestServer.withRunning { server in try await Self.twoReads(server) }
        }
    }
}
