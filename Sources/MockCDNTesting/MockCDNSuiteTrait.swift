import Testing

/// One server for a whole Swift Testing suite: `@Suite(.mockCDN)` starts it before the suite's first test
/// and stops it after its last, and each test reads it as `RunningMockCDN.shared`.
///
/// The suite's tests share the server's objects, journal, faults and clock, and Swift Testing runs them in
/// parallel by default. Tests that move the clock, install faults or count journal entries either run in a
/// `.serialized` suite, calling `reset()` first, or start their own server with
/// `MockCDNTestServer.withRunning`.
public struct MockCDNSuiteTrait: SuiteTrait, TestScoping {
    /// The configuration of the shared server.
    public let configuration: ServerConfiguration

    /// Once for the suite, not once per test.
    public var isRecursive: Bool { false }

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

extension Trait where Self == MockCDNSuiteTrait {
    /// A server shared by the suite, in the default configuration (demo app, in memory, fixtures).
    public static var mockCDN: Self { MockCDNSuiteTrait(configuration: MockCDNTestServer.defaultConfiguration) }

    /// A server shared by the suite, in `configuration`.
    public static func mockCDN(_ configuration: ServerConfiguration) -> Self {
        MockCDNSuiteTrait(configuration: configuration)
    }
}

extension RunningMockCDN {
    /// The server of the enclosing `@Suite(.mockCDN)`, or nil outside one.
    @TaskLocal public static var current: RunningMockCDN?

    /// The server of the enclosing `@Suite(.mockCDN)`.
    ///
    /// - Throws: `MockCDNTestServer.NotInSuite` when the test's suite has no `.mockCDN` trait.
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
        public var description: String {
            "no shared MockCDN: add the .mockCDN trait to the suite, or use MockCDNTestServer.withRunning"
        }
    }
}
