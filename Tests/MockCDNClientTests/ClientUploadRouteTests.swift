import Foundation
import MockCDNClient
import MockCDNCore
import MockCDNServer
import MockCDNTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client's uploads besides Stream's: CometChat's media route and upload URLs with the presigned PUT they
/// lead to, and an S3 presigned POST form a backend signed. The server's journal is the witness.
@Suite("Client uploads through CometChat's routes and presigned URLs")
struct ClientUploadRouteTests {
    static let userJWT = ClientContractCoverageTests.userJWT

    static func client(_ server: RunningMockCDN) -> MockCDNClient {
        ClientContractCoverageTests.client(server, fat: ClientContractCoverageTests.fat(), jwt: Self.userJWT)
    }

    static func statuses(_ server: RunningMockCDN) async throws -> [String] {
        try await ClientEndToEndTests.journal(server).map {
            "\($0["method"] as? String ?? "") \($0["status"] as? Int ?? 0)"
        }
    }

    @Test("the media route stores a file with the FAT; its plain URL reads with the FAT")
    func mediaRoute() async throws {
        try await ClientEndToEndTests.run { server in
            let client = Self.client(server)
            let bytes = Data("hello from the media route".utf8)
            let url = try await client.mediaUploads.upload(data: bytes, fileName: "note.txt", mimeType: "text/plain")
            #expect(url.path.hasPrefix("/demo/media/") && url.path.hasSuffix("/note.txt") && url.query == nil)
            #expect(try await client.data(for: client.requester.fileRequest(for: url)) == bytes)

            let loggedOut = ClientEndToEndTests.client(server, fat: nil)
            await #expect(throws: MockCDNClientError.notLoggedIn) {
                try await loggedOut.mediaUploads.upload(data: bytes, fileName: "note.txt")
            }
            #expect(try await Self.statuses(server) == ["POST 201", "GET 200"])
        }
    }

    @Test("in the presigned media URL mode, uploads answer CloudFront canned links that read with no FAT")
    func cannedLinks() async throws {
        var configuration = MockCDNTestServer.defaultConfiguration
        configuration.apps[0].mediaURLAccess = .presigned
        try await MockCDNTestServer.withRunning(configuration) { server in
            let client = Self.client(server)
            let bytes = Data("a canned link".utf8)
            let viaMedia = try await client.mediaUploads.upload(data: bytes, fileName: "a.txt", mimeType: "text/plain")
            let announced = CometChatUploads.AnnouncedFile(name: "b.txt", contentType: "text/plain", size: bytes.count)
            let uploadURL = try #require(try await client.mediaUploads.uploadURLs(for: [announced]).first)
            let viaPut = try #require(try await client.presignedUploads.put(bytes, to: uploadURL).url)
            for link in [viaMedia, viaPut] {
                let names = Set(
                    (URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems ?? []).map(\.name)
                )
                #expect(names.isSuperset(of: ["Expires", "Signature", "Key-Pair-Id"]) && !names.contains("Policy"))
                // A signed link is its own credential: read as it is, without the requester's FAT.
                let read = try await client.read(CDNRequest(url: link))
                #expect(read.status == 200 && read.data == bytes)
            }
            let credentials = try await ClientEndToEndTests.journal(server, "?method=GET").map {
                $0["credential"] as? String
            }
            #expect(credentials == ["cloudfront", "cloudfront"])
        }
    }

    @Test("upload URLs: announce, PUT, read back; a file over the limit is 413, an expired URL 403")
    func uploadURLs() async throws {
        var configuration = MockCDNTestServer.defaultConfiguration
        configuration.apps[0].fileUploadConfig.sizeLimit = 1024
        let uploadURLTTL = Int(configuration.apps[0].uploadURLTTL)
        try await MockCDNTestServer.withRunning(configuration) { server in
            let client = Self.client(server)
            let bytes = Data("sent through an upload URL".utf8)
            let announced = CometChatUploads.AnnouncedFile(
                name: "note.txt",
                contentType: "text/plain",
                size: bytes.count
            )
            let uploads = try await client.mediaUploads.uploadURLs(for: [announced])
            let upload = try #require(uploads.first)
            #expect(uploads.count == 1 && upload.maxBytes == bytes.count && upload.key.hasPrefix("demo/media/"))
            #expect(upload.headers["Content-Type"] == "text/plain")
            let stored = try await client.presignedUploads.put(bytes, to: upload)
            #expect(stored.key == upload.key && stored.etag?.hasPrefix("\"") == true)
            let url = try #require(stored.url)
            #expect(try await client.data(for: client.requester.fileRequest(for: url)) == bytes)

            await #expect(throws: MockCDNClientError.tooLarge) {
                try await client.mediaUploads.uploadURLs(
                    for: [.init(name: "big.bin", contentType: "application/octet-stream", size: 4096)]
                )
            }
            // Without a FAT the user token asks, as CometChat's route allows.
            let late = try await ClientEndToEndTests.client(server, fat: nil).mediaUploads.uploadURLs(for: [announced])
            try await ClientEndToEndTests.advanceClock(server, uploadURLTTL + 1)
            let expired = await #expect(throws: MockCDNClientError.invalidResponse) {
                try await client.presignedUploads.put(bytes, to: late[0])
            }
            #expect(expired?.detail.contains("ERR_PRESIGNED_URL_EXPIRED") == true)
            #expect(
                try await Self.statuses(server) == [
                    "POST 200", "PUT 200", "GET 200", "POST 413", "POST 200", "PUT 403",
                ]
            )
        }
    }

    @Test("a backend's S3 presigned PUT stores with its signed headers; sent without them, S3's code comes back")
    func backendPresignedPut() async throws {
        try await ClientEndToEndTests.run { server in
            // The backend (boto3's generate_presigned_url("put_object", ContentType=...)) signs; the app only sends.
            let app = AppConfiguration.demo
            let signed = SigV4.presignedURL(
                method: "PUT",
                scheme: "http",
                authority: "\(server.baseURL.host ?? "127.0.0.1"):\(server.baseURL.port ?? 80)",
                path: "/demo/avatars/alice.png",
                credentials: SigV4Credentials(
                    accessKeyID: app.apiKey,
                    secretAccessKey: app.apiSecret,
                    region: app.s3Region
                ),
                date: server.clock.unixSeconds,
                expires: 300,
                headers: ["content-type": "image/png"]
            )
            let url = try #require(URL(string: signed))
            let client = ClientEndToEndTests.client(server)
            let png = try Data(contentsOf: Fixture.path("media/sample.png"))
            let stored = try await client.presignedUploads.put(
                png,
                to: UploadURL(url: url, headers: ["Content-Type": "image/png"])
            )
            #expect(stored.etag?.hasPrefix("\"") == true && stored.url == nil)
            // The signature covers the content type: an UploadURL that drops the backend's headers is refused.
            let refused = await #expect(throws: MockCDNClientError.invalidResponse) {
                try await client.presignedUploads.put(png, to: UploadURL(url: url))
            }
            #expect(refused?.detail.contains("SignatureDoesNotMatch") == true)
            let answers = try await ClientEndToEndTests.journal(server).map {
                "\($0["status"] as? Int ?? 0) \($0["credential"] as? String ?? "")"
            }
            #expect(answers == ["200 presigned", "403 none"])
        }
    }

    /// A SigV4 POST form for the demo app as boto3's `generate_presigned_post` makes one, signed now by the
    /// server's clock: keys under `uploads/`, at most `maxBytes`, living `lifetime` seconds.
    static func form(_ server: RunningMockCDN, maxBytes: Int, lifetime: TimeInterval = 600) -> PresignedPostForm {
        let app = AppConfiguration.demo
        let now = server.clock.now
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let amzDate = formatter.string(from: now)
        let day = String(amzDate.prefix(8))
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z'"
        let expiration = formatter.string(from: now.addingTimeInterval(lifetime))
        let credential = "\(app.apiKey)/\(day)/\(app.s3Region)/s3/aws4_request"
        let policy =
            #"{"expiration": "\#(expiration)", "conditions": [{"bucket": "demo"}, "#
            + #"["starts-with", "$key", "uploads/"], ["content-length-range", 1, \#(maxBytes)], "#
            + #"{"x-amz-algorithm": "AWS4-HMAC-SHA256"}, {"x-amz-credential": "\#(credential)"}, "#
            + #"{"x-amz-date": "\#(amzDate)"}]}"#
        let encoded = Data(policy.utf8).base64EncodedString()
        let credentials = SigV4Credentials(
            accessKeyID: app.apiKey,
            secretAccessKey: app.apiSecret,
            region: app.s3Region
        )
        return PresignedPostForm(
            url: server.url("/demo"),
            fields: [
                "key": "uploads/${filename}",
                "x-amz-algorithm": "AWS4-HMAC-SHA256",
                "x-amz-credential": credential,
                "x-amz-date": amzDate,
                "policy": encoded,
                "x-amz-signature": PostPolicy.sigV4Signature(policy: encoded, credentials: credentials, day: day),
            ]
        )
    }

    @Test("a presigned POST form stores the file; too large, a refused type and an expired policy are refused")
    func postForm() async throws {
        var configuration = MockCDNTestServer.defaultConfiguration
        configuration.apps[0].fileUploadConfig.blockedFileExtensions = ["exe"]
        try await MockCDNTestServer.withRunning(configuration) { server in
            let client = Self.client(server)
            let bytes = Data("posted with a form".utf8)
            let form = Self.form(server, maxBytes: 64)
            let stored = try await client.presignedUploads.post(
                bytes,
                fileName: "form.txt",
                mimeType: "text/plain",
                form: form
            )
            #expect(stored.etag?.hasPrefix("\"") == true)
            let url = try #require(stored.url)
            #expect(url.path == "/demo/uploads/form.txt")
            #expect(try await client.data(for: client.requester.fileRequest(for: url)) == bytes)

            await #expect(throws: MockCDNClientError.tooLarge) {
                try await client.presignedUploads.post(Data(count: 65), fileName: "big.bin", form: form)
            }
            await #expect(throws: MockCDNClientError.invalidResponse) {
                try await client.presignedUploads.post(bytes, fileName: "tool.exe", form: form)
            }
            try await ClientEndToEndTests.advanceClock(server, 601)
            let expired = await #expect(throws: MockCDNClientError.invalidResponse) {
                try await client.presignedUploads.post(bytes, fileName: "late.txt", form: form)
            }
            #expect(expired?.detail.contains("AccessDenied") == true)
            let answers = try await ClientEndToEndTests.journal(server).map {
                "\($0["method"] as? String ?? "") \($0["status"] as? Int ?? 0) \($0["credential"] as? String ?? "")"
            }
            #expect(
                answers == [
                    "POST 204 s3-post-policy", "GET 200 fat-query", "POST 400 s3-post-policy",
                    "POST 415 s3-post-policy",
                    "POST 403 none",
                ]
            )
        }
    }

    /// The keys the demo app holds, from the console's listing.
    static func keys(_ server: RunningMockCDN) async throws -> [String] {
        let (data, _) = try await URLSession.shared.data(from: server.url("/_mockcdn/objects?app=demo"))
        let objects = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["objects"] as? [[String: Any]]
        return try #require(objects).compactMap { $0["key"] as? String }.sorted()
    }

    @Test("a full store refuses Stream's upload, CometChat's media route and a POST form with 507: .storageFull")
    func storageFull() async throws {
        var configuration = MockCDNTestServer.defaultConfiguration
        configuration.memoryStoreBytes = 2 << 20
        try await MockCDNTestServer.withRunning(configuration) { server in
            let client = Self.client(server)
            let before = try await Self.keys(server)
            let bytes = Data(repeating: UInt8(ascii: "a"), count: 3 << 20)
            await #expect(throws: MockCDNClientError.storageFull) {
                _ = try await client.storage.upload(data: bytes, options: .init(fileName: "full.txt"))
            }
            await #expect(throws: MockCDNClientError.storageFull) {
                try await client.mediaUploads.upload(data: bytes, fileName: "full.txt", mimeType: "text/plain")
            }
            await #expect(throws: MockCDNClientError.storageFull) {
                try await client.presignedUploads.post(
                    bytes,
                    fileName: "full.txt",
                    form: Self.form(server, maxBytes: 4 << 20)
                )
            }
            #expect(try await Self.statuses(server) == ["POST 507", "POST 507", "POST 507"])
            #expect(try await Self.keys(server) == before)
            let small = try await client.mediaUploads.upload(data: Data("fits".utf8), fileName: "small.txt")
            #expect(try await client.data(for: client.requester.fileRequest(for: small)) == Data("fits".utf8))
        }
    }
}
