import Foundation
import MockCDNCore
import NIOCore

/// `AppState` in the bucket, shared by every instance on it: one small JSON document per app at
/// `state/APP.json` (members per channel, and the upload settings `PATCH /app` set), read at each use and
/// changed by read, change, write-if-unchanged (`If-Match` on the ETag read, `If-None-Match: *` for the first
/// write), tried again when another instance wrote in between. A store that ignores those conditions makes
/// concurrent changes to the same app last-writer-wins.
public final class S3AppState: AppState {
    let client: S3Client

    struct Document: Codable {
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

    func key(_ app: MediaApp) -> String { self.client.location.prefix + "state/" + app.id + ".json" }

    func document(_ app: MediaApp) async throws -> (document: Document, etag: String?) {
        guard let (body, etag) = try await self.client.getSmallObject(self.key(app)) else { return (Document(), nil) }
        guard let document = try? JSONDecoder().decode(Document.self, from: Data(body.readableBytesView)) else {
            throw MockCDNError.storageFailure("the S3 store holds an unreadable state document for app \(app.id)")
        }
        return (document, etag)
    }

    /// Applies `change` to the app's document, written only if nobody wrote it since it was read.
    func change(_ app: MediaApp, _ change: (inout Document) -> Void) async throws {
        for attempt in 0..<16 {
            let (read, etag) = try await self.document(app)
            var document = read
            change(&document)
            do {
                try await self.client.putObject(
                    self.key(app),
                    bytes: ByteBuffer(bytes: try JSONEncoder().encode(document)),
                    contentType: "application/json",
                    ifMatch: etag,
                    ifNoneMatch: etag == nil ? "*" : nil
                )
                return
            } catch let failure as S3Client.Failure where failure.status == 412 || failure.status == 409 {
                // Another instance wrote first: read again after a short, random pause, so that writers who
                // collided do not collide again.
                try await Task.sleep(for: .milliseconds(Int.random(in: 5...25) * min(attempt + 1, 8)))
            }
        }
        throw MockCDNError.storageFailure("the state of app \(app.id) kept changing under an update")
    }

    public func addMembers(_ users: [String], app: MediaApp, channel: String) async throws {
        try await self.change(app) { document in
            document.members[channel] = Array(Set(document.members[channel] ?? []).union(users)).sorted()
        }
    }

    public func isMember(_ user: String, app: MediaApp, channel: String) async throws -> Bool {
        try await self.document(app).document.members[channel]?.contains(user) ?? false
    }

    public func uploadConfig(_ kind: UploadPolicy.Kind, app: MediaApp) async throws -> UploadConfig {
        let document = try await self.document(app).document
        let configured = kind == .image ? app.configuration.imageUploadConfig : app.configuration.fileUploadConfig
        return (kind == .image ? document.imageUploadConfig : document.fileUploadConfig) ?? configured
    }

    public func setUploadConfig(_ config: UploadConfig, for kind: UploadPolicy.Kind, app: MediaApp) async throws {
        try await self.change(app) { document in
            if kind == .image { document.imageUploadConfig = config } else { document.fileUploadConfig = config }
        }
    }

    public func reset(_ apps: [MediaApp]) async throws {
        for app in apps { try await self.client.deleteObject(self.key(app)) }
    }
}
