import Foundation
import MockCDNCore
import MockCDNS3

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// moto_server (moto[server] from PyPI), a real S3 endpoint on a free loopback port, started once per test
/// process; each caller gets a bucket of its own. A watcher shell stops it when the test process ends, however
/// that ends.
///
/// `make test` installs moto and sets MOCKCDN_REQUIRE_S3=1, so there a missing moto_server fails the S3 tests;
/// a bare `swift test` without moto skips them.
enum MotoServer {
    struct Missing: Error, CustomStringConvertible {
        var description: String { "moto_server is not on PATH (make test installs moto[server] into .venv)" }
    }

    static var required: Bool { ProcessInfo.processInfo.environment["MOCKCDN_REQUIRE_S3"] == "1" }

    static var isInstalled: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/moto_server")
        }
    }

    /// Whether the S3 cases run: moto is there, or `make test` requires it (and then its absence fails).
    static var enabled: Bool { self.isInstalled || self.required }

    private static let endpoint = Task<String, any Error> {
        guard isInstalled else { throw Missing() }
        let port = try freePort()
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/bin/sh")
        watcher.arguments = [
            "-c",
            "moto_server -H 127.0.0.1 -p \(port) >/dev/null 2>&1 & moto=$!; "
                + "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; kill -9 $moto",
        ]
        // Not the test process's pipes: the runner (`swift test`) reads them to their end, and would wait for
        // the watcher as long as it held them.
        watcher.standardInput = FileHandle.nullDevice
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        let base = "http://127.0.0.1:\(port)"
        // A poll, not a margin: it ends at moto_server's first answer, and gives up after 30 s.
        for _ in 0..<300 {
            if let (_, response) = try? await URLSession.shared.data(from: URL(string: base + "/moto-api/")!),
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                return base
            }
            try await Task.sleep(for: .milliseconds(100))  // poll interval; the loop gives up after 30 s
        }
        throw MockCDNError.storageFailure("moto_server did not start on port \(port)")
    }

    /// A new, empty bucket on the shared moto_server, and an S3 client for it.
    static func bucket(prefix: String = "") async throws -> S3Client {
        let endpoint = try await self.endpoint.value
        let name = "mockcdn-" + UUID().uuidString.lowercased().prefix(18)
        let location = try S3Location(
            "s3://\(name)/\(prefix)",
            environment: [
                "AWS_ENDPOINT_URL_S3": endpoint,
                "AWS_ACCESS_KEY_ID": "testing",
                "AWS_SECRET_ACCESS_KEY": "testing",
                "AWS_REGION": "us-east-1",
            ]
        )
        let client = S3Client(location: location)
        try await client.createBucket()
        return client
    }

    static func freePort() throws -> Int {
        #if os(Linux)
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let socket = Foundation.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw MockCDNError.storageFailure("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
