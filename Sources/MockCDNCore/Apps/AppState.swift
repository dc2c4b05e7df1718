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
