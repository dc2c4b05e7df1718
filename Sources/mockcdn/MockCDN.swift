import ArgumentParser
import MockCDNServer

/// The `mockcdn` command: subcommands only, the work is in MockCDNServer.
@main
struct MockCDNCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mockcdn",
        abstract: "A mock CDN and media backend for Stream and CometChat apps, with real signatures and expiry.",
        version: mockCDNVersion,
        subcommands: [Serve.self, Token.self, Sign.self, Keys.self, Report.self, Fixtures.self],
        defaultSubcommand: Serve.self
    )
}
