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
}
