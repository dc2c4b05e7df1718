@_exported import Foundation
import Hummingbird
import Logging
@_exported import MockCDNClient
@_exported import MockCDNCore
@_exported import MockCDNServer
import ServiceLifecycle

#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif

/// A MockCDN server started for one test, or for one suite.
///
/// ``MockCDNTestServer/withRunning(_:_:)`` hands one to its body; ``shared`` is the one of a
/// `@Suite(.mockCDN)`. It is a plain value: copies talk to the same server and share its clock.
public struct RunningMockCDN: Sendable {
    /// `http://127.0.0.1:PORT`, with the port the server really bound.
    public let baseURL: URL
    /// The configuration the server runs with: the one given, with host `127.0.0.1` and port 0 (the port
    /// really bound is in ``baseURL``).
    public let configuration: ServerConfiguration
    /// The server's clock, read and moved directly (no request needed).
    public var clock: MockClock { self.configuration.clock }

    /// The absolute URL of `path` on this server.
    ///
    /// - Parameter path: a path starting with `/`, optionally with a query.
    /// - Returns: the URL.
    public func url(_ path: String) -> URL {
        URL(string: self.baseURL.absoluteString + path)!
    }
}

/// Starts a real MockCDN server inside a test suite.
///
/// The server runs in the test's own process and answers real HTTP on loopback. It is the application
/// `mockcdn serve` builds (`buildApplication`), so a test exercises the code the binary runs, not a stand-in.
public enum MockCDNTestServer {
    /// MockCDN's sample media (`Fixtures/media`: images of every format, videos, a PDF, an SVG), found
    /// next to this package's sources, so it is there for a package that depends on MockCDN too.
    public static let fixturesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/media").path

    /// In memory, the demo app, warnings only, the fixtures preloaded.
    public static var defaultConfiguration: ServerConfiguration {
        var configuration = ServerConfiguration(logLevel: .warning)
        configuration.fixturesDirectory = Self.fixturesDirectory
        return configuration
    }

    /// Runs `body` against a freshly started server and stops the server afterwards.
    ///
    /// The server binds 127.0.0.1 on a free port whatever `configuration.port` says, so tests can run in
    /// parallel. By default it serves the demo app in memory, logs warnings only, and preloads the
    /// repository's fixtures (`fixturesDirectory`) at `demo/fixtures/{name}`. With `MOCKCDN_REPORT` set to a
    /// file, the server's contract coverage report is added to that file when `body` returns
    /// (``CoverageReportFile``).
    ///
    /// - Parameters:
    ///   - configuration: the server's configuration (in memory, demo app, by default).
    ///   - body: the test, given the running server.
    /// - Returns: what `body` returns.
    /// - Throws: what starting the server or `body` throws.
    public static func withRunning<Result: Sendable>(
        _ configuration: ServerConfiguration = MockCDNTestServer.defaultConfiguration,
        _ body: @Sendable (RunningMockCDN) async throws -> Result
    ) async throws -> Result {
        var configuration = configuration
        configuration.host = "127.0.0.1"
        configuration.port = 0
        let (ready, readyContinuation) = AsyncStream.makeStream(of: String.self)
        let app = try await buildApplication(configuration) { baseURL in
            readyContinuation.yield(baseURL)
            readyContinuation.finish()
        }
        let services = serviceGroup(running: app, stoppingOn: [], logger: Logger(label: "mockcdn.testing"))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { readyContinuation.finish() }
                try await services.run()
            }
            var readyIterator = ready.makeAsyncIterator()
            guard let baseURL = await readyIterator.next(), let url = URL(string: baseURL) else {
                // The server stopped before it listened: surface its error.
                try await group.next()
                throw CancellationError()
            }
            let configured = configuration
            let running = RunningMockCDN(baseURL: url, configuration: configured)
            do {
                let result = try await body(running)
                // `MOCKCDN_REPORT`: the report of what this server saw, added to the process's file.
                try await CoverageReportFile.write(from: running)
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                return result
            } catch {
                // A failed test exercised what it exercised: its report still counts (unless writing it
                // was what failed).
                if !(error is CoverageReportFile.WriteFailure) { try? await CoverageReportFile.write(from: running) }
                await services.triggerGracefulShutdown()
                try? await group.waitForAll()
                throw error
            }
        }
    }
}
