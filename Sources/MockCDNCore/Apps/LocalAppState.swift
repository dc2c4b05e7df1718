/// `AppState` in this process: the channel directory, and each app's own settings.
public final class LocalAppState: AppState {
    let channels = ChannelDirectory()

    public init() {}

    public func addMembers(_ users: [String], app: MediaApp, channel: String) async throws {
        self.channels.add(users, app: app.account.id, channel: channel)
    }

    public func isMember(_ user: String, app: MediaApp, channel: String) async throws -> Bool {
        self.channels.isMember(user, app: app.account.id, channel: channel)
    }

    public func uploadConfig(_ kind: UploadPolicy.Kind, app: MediaApp) async throws -> UploadConfig {
        app.uploadConfig(kind)
    }

    public func setUploadConfig(_ config: UploadConfig, for kind: UploadPolicy.Kind, app: MediaApp) async throws {
        app.setUploadConfig(config, for: kind)
    }

    public func reset(_ apps: [MediaApp]) async throws {
        self.channels.removeAll()
        for app in apps { app.resetUploadConfigs() }
    }
}
