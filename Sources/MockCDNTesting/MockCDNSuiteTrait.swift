import Testing

/// One server for a whole Swift Testing suite, started once instead of once per test.
///
/// `@Suite(.mockCDN)` starts it before the suite's first test and stops it after its last, and each test
/// reads it as ``RunningMockCDN/shared``.
///
/// The suite's tests share the server's objects, journal, faults and clock, and Swift Testing runs them in
/// parallel by default. Tests that move the clock, install faults or count journal entries either run in a
/// `.serialized` suite, calling ``RunningMockCDN/reset()`` first, or start their own server with
/// ``MockCDNTestServer/withRunning(_:_:)``.
public struct MockCDNSuiteTrait: SuiteTrait, TestScoping {
    /// The configuration of the shared server (its host and port are replaced: it binds 127.0.0.1 on a free
    /// port).
    public let configuration: ServerConfiguration

    /// False: the scope is entered once for the suite, not once per test, so its tests share one server.
    public var isRecursive: Bool { false }

    /// Runs the suite inside a started server, readable as ``RunningMockCDN/shared``; Swift Testing calls it.
    ///
    /// - Parameters:
    ///   - test: the suite.
    ///   - testCase: nil for a suite.
    ///   - function: the suite's tests, run while the server is up.
    /// - Throws: what starting the server or the suite throws.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await MockCDNTestServer.withRunning(self.configuration) { server in
            try await RunningMockCDN.$current.withValue(server) { try await function() }
        }
    }
}

/// The `.mockCDN` traits: a shared MockCDN server for a Swift Testing suite.
extension Trait where Self == MockCDNSuiteTrait {
    /// A server shared by the suite, in the default configuration (demo app, in memory, fixtures).
    ///
    /// See ``MockCDNTestServer/defaultConfiguration``.
    public static var mockCDN: Self { MockCDNSuiteTrait(configuration: MockCDNTestServer.defaultConfiguration) }

    /// A server shared by the suite, in `configuration`.
    ///
    /// - Parameter configuration: the server's configuration; its host and port are replaced.
    /// - Returns: the trait, for `@Suite(.mockCDN(configuration))`.
    public static func mockCDN(_ configuration: ServerConfiguration) -> Self {
        MockCDNSuiteTrait(configuration: configuration)
    }
}

extension RunningMockCDN {
    /// The server of the enclosing `@Suite(.mockCDN)`, or nil outside one.
    ///
    /// A task-local value, so the server reaches every test of the suite however Swift Testing schedules them;
    /// most tests read ``shared``, which throws a clear error instead of returning nil. Its `$current`
    /// projection binds a server for a task of your own (`RunningMockCDN.$current.withValue(server) { ... }`).
    @TaskLocal public static var current: RunningMockCDN?

    /// The server of the enclosing `@Suite(.mockCDN)`.
    ///
    /// - Throws: ``MockCDNTestServer/NotInSuite`` when the test's suite has no `.mockCDN` trait.
    public static var shared: RunningMockCDN {
        get throws {
            guard let current else { throw MockCDNTestServer.NotInSuite() }
            return current
        }
    }
}

extension MockCDNTestServer {
    /// `RunningMockCDN.shared` was read outside a `@Suite(.mockCDN)`.
    public struct NotInSuite: Error, CustomStringConvertible {
        /// What to do about it: add the trait, or start a server of the test's own.
        public var description: String {
            "no shared MockCDN: add the .mockCDN trait to the suite, or use MockCDNTestServer.withRunning"
        }
    }
}
