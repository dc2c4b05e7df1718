import Foundation
import MockCDNClient
import MockCDNCore
import MockCDNServer
import MockCDNTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Rows of the contract coverage report (docs/report.md) the client's other end-to-end tests left open, closed
/// with the client's own API: resize modes and the pixel bound, refused credentials of each kind, and faults
/// that cut or slow an answer. `make client-coverage` writes the report of the whole client suite.
@Suite("Client contract coverage")
struct ClientContractCoverageTests {
    /// A FAT of the demo app's key, with the claims given.
    static func fat(app: String = "demo", expiresIn lifetime: Int64 = 3600) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return FileAccessToken.issue(
            FileAccessClaims(appID: app, userID: "alice", issuedAt: now - 10, expiresAt: now + lifetime),
            key: ClientEndToEndTests.demo.secretKey
        )
    }

    /// A client whose FAT and JWT are the ones given.
    static func client(_ server: RunningMockCDN, fat: String, jwt: String) -> MockCDNClient {
        MockCDNClient(
            configuration: MockCDNClientConfiguration(
                baseURL: server.baseURL,
                secureMediaMode: .embedded,
                fatProvider: { PercentEncodingForTests.encode(fat) },
                userTokenProvider: { jwt }
            )
        )
    }

    static let userJWT = JWT.sign(["user_id": "alice"], secret: AppConfiguration.demo.apiSecret)

    @Test("resize scale and fill read; a source above 16.8 MP is refused with the server's status")
    func resizes() async throws {
        try await ClientEndToEndTests.run { server in
            let client = Self.client(server, fat: Self.fat(), jwt: Self.userJWT)
            let jpeg = server.url("/demo/fixtures/sample.jpg")
            for mode in [CDNImageResize.Mode.scale, .fill] {
                let resize = CDNImageResize(width: 20, height: 10, mode: mode)
                let bytes = try await client.data(
                    for: client.requester.imageRequest(for: jpeg, options: ImageRequestOptions(resize: resize))
                )
                #expect(bytes.starts(with: [0xFF, 0xD8]))
            }
            let large = server.url("/demo/fixtures/large-4100x4100.jpg")
            await #expect(throws: MockCDNClientError.self) {
                _ = try await client.data(
                    for: client.requester.imageRequest(
                        for: large,
                        options: ImageRequestOptions(resize: CDNImageResize(width: 100))
                    )
                )
            }
            let statuses = try await ClientEndToEndTests.journal(server, "?method=GET").map { $0["status"] as? Int }
            #expect(statuses == [200, 200, 422])
        }
    }

    @Test("refused credentials: an expired or forged JWT on upload, a FAT of another app or forged on a read")
    func refusals() async throws {
        try await ClientEndToEndTests.run { server in
            let now = Int(Date().timeIntervalSince1970)
            let expired = JWT.sign(["user_id": "alice", "exp": now - 60], secret: AppConfiguration.demo.apiSecret)
            let forged = JWT.sign(["user_id": "alice"], secret: "not-the-demo-secret-at-all-32-bytes")
            for jwt in [expired, forged] {
                let client = Self.client(server, fat: Self.fat(), jwt: jwt)
                await #expect(throws: (any Error).self) {
                    _ = try await client.storage.upload(data: Data("x".utf8), options: .init(fileName: "x.txt"))
                }
            }
            let pdf = server.url("/demo/fixtures/sample.pdf")
            let genuine = Self.fat()
            let tampered = String(genuine.dropLast(4)) + (genuine.hasSuffix("AAAA") ? "BBBB" : "AAAA")
            for fat in [Self.fat(app: "other"), tampered] {
                let client = Self.client(server, fat: fat, jwt: Self.userJWT)
                await #expect(throws: MockCDNClientError.self) {
                    _ = try await client.data(for: client.requester.fileRequest(for: pdf))
                }
            }
            let reasons = try await ClientEndToEndTests.journal(server).map { $0["reason"] as? String ?? "" }
            #expect(reasons.count == 4)
            #expect(reasons[0].contains("token has expired") && reasons[1].contains("signature is not valid"))
            #expect(reasons[2].contains("belongs to another app") && reasons[3].contains("does not match"))
        }
    }

    @Test("a delayed answer still arrives; a truncated one is an error, not short data")
    func faults() async throws {
        try await ClientEndToEndTests.run { server in
            let client = Self.client(server, fat: Self.fat(), jwt: Self.userJWT)
            let pdf = server.url("/demo/fixtures/sample.pdf")
            try await ClientEndToEndTests.addFault(
                server,
                #"{"match":{"path":"/demo/fixtures/sample.pdf"},"times":1,"action":{"delay_ms":1}}"#
            )
            let whole = try await client.data(for: client.requester.fileRequest(for: pdf))
            #expect(whole.starts(with: Array("%PDF".utf8)))
            try await ClientEndToEndTests.addFault(
                server,
                #"{"match":{"path":"/demo/fixtures/sample.pdf"},"times":1,"action":{"truncate_after_bytes":10}}"#
            )
            await #expect(throws: (any Error).self) {
                _ = try await client.data(for: client.requester.fileRequest(for: pdf))
            }
            let kinds = try await ClientEndToEndTests.journal(server).map { $0["fault_kinds"] as? [String] ?? [] }
            #expect(kinds == [["delay"], ["truncate"]])
        }
    }

    @Test("presign refuses an expired, forged or foreign FAT as not logged in, and a missing object as 404")
    func presignRefusals() async throws {
        try await ClientEndToEndTests.run { server in
            let pdf = server.url("/demo/fixtures/sample.pdf")
            let genuine = Self.fat()
            let tampered = String(genuine.dropLast(4)) + (genuine.hasSuffix("AAAA") ? "BBBB" : "AAAA")
            for fat in [Self.fat(expiresIn: -60), tampered, Self.fat(app: "other")] {
                let client = Self.client(server, fat: fat, jwt: Self.userJWT)
                await #expect(throws: MockCDNClientError.notLoggedIn) {
                    try await client.presigned.fetchPresignedURL(for: pdf)
                }
            }
            let client = Self.client(server, fat: genuine, jwt: Self.userJWT)
            await #expect(throws: MockCDNClientError.invalidResponse) {
                try await client.presigned.fetchPresignedURL(for: server.url("/demo/fixtures/missing.pdf"))
            }
            let answers = try await ClientEndToEndTests.journal(server).map {
                "\($0["status"] as? Int ?? 0) \($0["reason"] as? String ?? "")"
            }
            #expect(answers.count == 4)
            #expect(answers[0].hasPrefix("401 ") && answers[0].contains("expired"))
            #expect(answers[1].hasPrefix("401 ") && answers[1].contains("signature does not match"))
            #expect(answers[2].hasPrefix("401 ") && answers[2].contains("belongs to another app"))
            #expect(answers[3].hasPrefix("404 "))
        }
    }

    @Test("an upload over the app's file limit is refused with 413, and nothing is stored")
    func tooLarge() async throws {
        var configuration = MockCDNTestServer.defaultConfiguration
        configuration.apps[0].fileUploadConfig.sizeLimit = 1024
        try await MockCDNTestServer.withRunning(configuration) { server in
            let client = Self.client(server, fat: Self.fat(), jwt: Self.userJWT)
            await #expect(throws: (any Error).self) {
                _ = try await client.storage.upload(data: Data(count: 4096), options: .init(fileName: "big.bin"))
            }
            let statuses = try await ClientEndToEndTests.journal(server).map { $0["status"] as? Int }
            #expect(statuses == [413])
        }
    }

    @Test("a video upload's thumbnail is its poster, and it reads as a JPEG", .enabled(if: Self.hasFFmpeg))
    func poster() async throws {
        try await ClientEndToEndTests.run { server in
            let client = Self.client(server, fat: Self.fat(), jwt: Self.userJWT)
            let video = try Data(contentsOf: Fixture.path("media/sample.mp4"))
            let uploaded = try await client.storage.upload(
                data: video,
                options: .init(fileName: "clip.mp4", mimeType: "video/mp4")
            )
            let thumbnail = try #require(uploaded.thumbnailURL)
            #expect(thumbnail.path.contains("/thumbnails/"))
            let poster = try await client.data(for: client.requester.fileRequest(for: thumbnail))
            #expect(poster.starts(with: [0xFF, 0xD8]))
        }
    }

    /// Video posters need the `ffmpeg` binary on `PATH`.
    static let hasFFmpeg: Bool = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/ffmpeg") }
    }()
}
