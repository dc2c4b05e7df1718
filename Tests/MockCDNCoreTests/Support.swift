import Foundation
import MockCDNCore
import MockCDNPoolWatchdog

/// Runs a command-line tool and returns its exit status and standard output; it waits outside the cooperative
/// pool.
@discardableResult
func runTool(_ arguments: [String], in directory: URL? = nil) async throws -> (status: Int32, output: String) {
    try await outsidePool { try runToolBlocking(arguments, in: directory) }
}

private func runToolBlocking(_ arguments: [String], in directory: URL?) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.currentDirectoryURL = directory
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

/// A fresh folder under the system's temporary directory, removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("mockcdn-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

extension VariantCache.Key {
    /// A test's variant key: the object's `width`-wide variant.
    static func of(_ object: String, etag: String = "e", width: Int = 1) -> Self {
        Self(object: object, etag: etag, transform: ImageTransform(width: width, height: nil))
    }
}

/// A presigned URL taken apart as a verifier sees it.
struct PresignedURLParts {
    let authority: String
    /// Decoded (SigV4 signs it so).
    let path: String
    /// As sent (SigV2 signs it so).
    let percentEncodedPath: String
    let query: [(name: String, value: String)]

    init(_ url: String) {
        let components = URLComponents(string: url)!
        self.authority = components.host! + (components.port.map { ":\($0)" } ?? "")
        self.path = components.path
        self.percentEncodedPath = components.percentEncodedPath
        self.query = (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }
    }
}
