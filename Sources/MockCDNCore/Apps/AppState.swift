/// What changes per app while the server runs: channel members (uploaders join the channel they upload to; a
/// server token adds members) and the upload settings `PATCH /app` sets. Kept in the process for the memory and
/// disk stores (`LocalAppState`), and in the bucket for the S3 store, so every instance on it sees the same.
public protocol AppState: Sendable {
    func addMembers(_ users: [String], app: MediaApp, channel: String) async throws
    func isMember(_ user: String, app: MediaApp, channel: String) async throws -> Bool
    /// The upload restrictions in force for `kind`.
    func uploadConfig(_ kind: UploadPolicy.Kind, app: MediaApp) async throws -> UploadConfig
    /// Replaces the upload restrictions of `kind` (`PATCH /app`); effective for the next request.
    func setUploadConfig(_ config: UploadConfig, for kind: UploadPolicy.Kind, app: MediaApp) async throws
    /// Back to the configuration: no members, the configured upload settings (`/_mockcdn/reset`).
    func reset(_ apps: [MediaApp]) async throws
}

/// `AppState` in this process: the channel directory, and each app's own settings.
public final class LocalAppState: AppState {
    let channels = ChannelDirectory()

    public init() {}

    public func addMembers(_ users: [String], app: MediaApp, channel: String) async throws {
        self.channels.add(users, app: app.id, channel: channel)
    }

    public func isMember(_ user: String, app: MediaApp, channel: String) async throws -> Bool {
        self.channels.isMember(user, app: app.id, channel: channel)
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
