import MockCDNCore
import MockCDNS3
import Testing

/// Channel members and upload settings in the bucket, as two instances share them.
@Suite("S3 app state", .enabled(if: MotoServer.enabled))
struct S3AppStateTests {
    @Test("two instances adding members at once lose none (conditional writes), and see each other's settings")
    func concurrentMembers() async throws {
        let client = try await MotoServer.bucket(prefix: "p/")
        let app = try MediaApp(.demo)
        let first = S3AppState(client: client)
        let second = S3AppState(client: S3Client(location: client.location))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<12 {
                let state = index.isMultiple(of: 2) ? first : second
                group.addTask { try await state.addMembers(["user\(index)"], app: app, channel: "messaging:general") }
            }
            try await group.waitForAll()
        }
        for index in 0..<12 {
            #expect(try await first.isMember("user\(index)", app: app, channel: "messaging:general"))
        }
        #expect(try await !second.isMember("user0", app: app, channel: "messaging:other"))

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
