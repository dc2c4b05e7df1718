import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs the real `mockcdn` binary, as a script or CI job would.
@Suite("mockcdn serve")
struct ServeCommandTests {
    /// The binary SwiftPM built next to the test bundle.
    static var binary: URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = testBinary.deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("mockcdn")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return testBinary.deletingLastPathComponent().appendingPathComponent("mockcdn")
    }

    /// Reads stdout line by line until `count` lines arrived or the pipe closed.
    static func readLines(_ handle: FileHandle, count: Int) -> [String] {
        var buffer = Data()
        while buffer.split(separator: UInt8(ascii: "\n")).count < count || buffer.last != UInt8(ascii: "\n") {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer += chunk
        }
        return String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("prints the ready line and the keys, serves health, and exits 0 on SIGTERM", arguments: [SIGTERM, SIGINT])
    func readyLineAndGracefulShutdown(signal: Int32) async throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["serve", "--port", "0", "--log-level", "warning"]
        let stdout = Pipe()
        process.standardOutput = stdout
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let lines = Self.readLines(stdout.fileHandleForReading, count: 2)
        try #require(lines.count >= 2, "stdout was \(lines)")
        let prefix = "mockcdn ready on http://127.0.0.1:"
        try #require(lines[0].hasPrefix(prefix), "first line was \(lines[0])")
        let port = try #require(Int(lines[0].dropFirst(prefix.count)))
        #expect(port > 0 && port != 8080)
        #expect(lines[1] == "app_id=demo api_key=demo-key api_secret=demo-secret-for-local-testing-only region=us")

        let (_, response) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(port)/_mockcdn/health")!
        )
        #expect((response as? HTTPURLResponse)?.statusCode == 200)

        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!process.isRunning)
        #expect(process.terminationStatus == 0)
    }

    @Test("a port out of range exits non-zero with a reason")
    func badPort() throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["serve", "--port", "70000"]
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = Pipe()
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("--port must be 0...65535"))
    }
}
