import MockCDNCore
import MockCDNS3
import NIOCore
import Testing

/// Channel members and upload settings in the bucket, as two instances share them.
@Suite("S3 app state", .enabled(if: MotoServer.enabled))
struct S3AppStateTests {
    @Test("members added by two instances in turn all hold; a write from a stale read is refused; settings are shared")
    func sharedMembersAndSettings() async throws {
        let client = try await MotoServer.bucket(prefix: "p/")
        let app = try MediaApp(.demo)
        let first = S3AppState(client: client)
        let second = S3AppState(client: S3Client(location: client.location))
        for index in 0..<6 {
            let state = index.isMultiple(of: 2) ? first : second
            try await state.addMembers(["user\(index)"], app: app, channel: "messaging:general")
        }
        for index in 0..<6 {
            #expect(try await second.isMember("user\(index)", app: app, channel: "messaging:general"))
        }
        #expect(try await !second.isMember("user0", app: app, channel: "messaging:other"))

        // What keeps two instances from losing each other's changes: a write made from a stale read is refused.
        let key = "p/state/demo.json"
        let (_, etag) = try #require(try await client.getSmallObject(key))
        try await first.addMembers(["late"], app: app, channel: "messaging:general")
        await #expect(throws: S3Client.Failure.self) {
            try await client.putObject(key, bytes: ByteBuffer(string: "{}"), ifMatch: etag)
        }
        await #expect(throws: S3Client.Failure.self) {
            try await client.putObject(key, bytes: ByteBuffer(string: "{}"), ifNoneMatch: "*")
        }
        #expect(try await second.isMember("late", app: app, channel: "messaging:general"))

        #expect(try await second.uploadConfig(.file, app: app) == app.configuration.fileUploadConfig)
        var config = app.configuration.fileUploadConfig
        config.blockedFileExtensions = ["exe"]
        try await first.setUploadConfig(config, for: .file, app: app)
        #expect(try await second.uploadConfig(.file, app: app).blockedFileExtensions == ["exe"])
        #expect(try await second.uploadConfig(.image, app: app) == app.configuration.imageUploadConfig)

        try await second.reset([app])
        #expect(try await first.uploadConfig(.file, app: app) == app.configuration.fileUploadConfig)
        #expect(try await !first.isMember("user1", app: app, channel: "messaging:general"))
        #expect(try await client.listKeys(prefix: "").isEmpty)
    }
}
