import Foundation
import MockCDNCore
import NIOCore

/// `AppState` in the bucket, shared by every instance on it: one small JSON document per app at
/// `state/APP.json` (members per channel, and the upload settings `PATCH /app` set), read at each use and
/// changed as `S3Document` changes it.
public final class S3AppState: AppState {
    let client: S3Client

    struct Document: Codable, Sendable {
        var members: [String: [String]] = [:]
        var fileUploadConfig: UploadConfig?
        var imageUploadConfig: UploadConfig?

        enum CodingKeys: String, CodingKey {
            case members
            case fileUploadConfig = "file_upload_config"
            case imageUploadConfig = "image_upload_config"
        }
    }

    public init(client: S3Client) {
        self.client = client
    }

    /// The document of the app's account: a created bucket's state is its owner's.
    func key(_ app: MediaApp) -> String { self.client.location.prefix + "state/" + app.account.id + ".json" }

    /// The app's document, as `S3Document` reads and changes it.
    func document(_ app: MediaApp) -> S3Document<Document> {
        S3Document(client: self.client, key: self.key(app), empty: Document(), name: "app \(app.account.id)")
    }

    public func addMembers(_ users: [String], app: MediaApp, channel: String) async throws {
        try await self.document(app).change { document in
            document.members[channel] = Array(Set(document.members[channel] ?? []).union(users)).sorted()
        }
    }

    public func isMember(_ user: String, app: MediaApp, channel: String) async throws -> Bool {
        try await self.document(app).read().value.members[channel]?.contains(user) ?? false
    }

    public func uploadConfig(_ kind: UploadPolicy.Kind, app: MediaApp) async throws -> UploadConfig {
        let document = try await self.document(app).read().value
        let configured = kind == .image ? app.configuration.imageUploadConfig : app.configuration.fileUploadConfig
        return (kind == .image ? document.imageUploadConfig : document.fileUploadConfig) ?? configured
    }

    public func setUploadConfig(_ config: UploadConfig, for kind: UploadPolicy.Kind, app: MediaApp) async throws {
        try await self.document(app).change { document in
            if kind == .image { document.imageUploadConfig = config } else { document.fileUploadConfig = config }
        }
    }

    public func reset(_ apps: [MediaApp]) async throws {
        for app in apps { try await self.client.deleteObject(self.key(app)) }
    }
}
