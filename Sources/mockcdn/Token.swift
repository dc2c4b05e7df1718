import ArgumentParser
import MockCDNServer

/// `mockcdn token server|user|fat`: print a token signed with an app's secret.
struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a Stream JWT (server or user) or a CometChat File Access Token for an app.",
        discussion: """
            Examples:
              mockcdn token server
              mockcdn token user --user-id alice --ttl 3600
              mockcdn token fat --user-id alice --ttl 600
            """
    )

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case server, user, fat
    }

    @Argument(help: "server (a Stream server JWT), user (a Stream user JWT) or fat (a File Access Token).")
    var kind: Kind

    @Option(help: "The user the token is for (user and fat).")
    var userId: String?

    @Option(help: "Lifetime in seconds (JWT: no exp when omitted; FAT: default 3600).")
    var ttl: Int64?

    @OptionGroup var appOptions: AppOptions

    func validate() throws {
        if self.kind != .server, (self.userId ?? "").isEmpty {
            throw ValidationError("--user-id is required for \(self.kind.rawValue)")
        }
        if let ttl = self.ttl, !(1...(365 * 24 * 3600)).contains(ttl) {
            throw ValidationError("--ttl must be 1...31536000 seconds")
        }
    }

    func run() async throws {
        let app = try self.appOptions.loadApp()
        let now = try await self.appOptions.signingTime()
        switch self.kind {
        case .server: print(CommandLineTools.streamToken(app: app, user: nil, lifetime: self.ttl, now: now))
        case .user: print(CommandLineTools.streamToken(app: app, user: self.userId, lifetime: self.ttl, now: now))
        case .fat:
            print(
                CommandLineTools.fileAccessToken(
                    app: app,
                    user: self.userId ?? "",
                    lifetime: self.ttl ?? 3600,
                    now: now
                )
            )
        }
    }
}
