import Foundation
import MockCDNClient
import MockCDNCore
import MockCDNServer
import MockCDNTesting
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client against a real server started with MockCDNTesting; the server's journal and answers are
/// the witnesses.
@Suite("Client end to end")
struct ClientEndToEndTests {
    static let demo = try! MediaApp(.demo)

    static func fat(user: String = "alice") -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return FileAccessToken.issue(
            FileAccessClaims(appID: "demo", userID: user, issuedAt: now, expiresAt: now + 3600),
            key: demo.secretKey
        )
    }

    static func client(
        _ server: RunningMockCDN,
        mode: SecureMediaMode = .embedded,
        fat: String? = ClientEndToEndTests.fat()
    ) -> MockCDNClient {
        MockCDNClient(
            configuration: MockCDNClientConfiguration(
                baseURL: server.baseURL,
                secureMediaMode: mode,
                fatProvider: { fat.map { PercentEncodingForTests.encode($0) } },
                userTokenProvider: { JWT.sign(["user_id": "alice"], secret: AppConfiguration.demo.apiSecret) }
            )
        )
    }

    static func run(_ body: @Sendable (RunningMockCDN) async throws -> Void) async throws {
        try await MockCDNTestServer.withRunning { try await body($0) }
    }

    static func journal(_ server: RunningMockCDN, _ filter: String = "") async throws -> [[String: Any]] {
        let (data, _) = try await URLSession.shared.data(from: server.url("/_mockcdn/requests" + filter))
        return try #require(
            (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["requests"] as? [[String: Any]]
        )
    }

    static func send(_ request: URLRequest) async throws -> (Data, Int) {
        let (data, response) = try await URLSession.shared.data(for: request)
        return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    static func advanceClock(_ server: RunningMockCDN, _ seconds: Int) async throws {
        var request = URLRequest(url: server.url("/_mockcdn/clock/advance"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"seconds":\#(seconds)}"#.utf8)
        #expect(try await Self.send(request).1 == 200)
    }

    static func addFault(_ server: RunningMockCDN, _ json: String) async throws {
        var request = URLRequest(url: server.url("/_mockcdn/faults"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(json.utf8)
        #expect(try await Self.send(request).1 == 201)
    }

    @Test("embedded mode sends the FAT in the query; header-based mode never does")
    func modes() async throws {
        try await Self.run { server in
            let client = Self.client(server)
            let uploaded = try await client.storage.upload(data: Data("hello".utf8), options: .init(fileName: "h.txt"))
            let media = URL(string: String(uploaded.fileURL.absoluteString.prefix { $0 != "?" }))!

            let embedded = client.secureMedia.embeddingFat(in: media)
            #expect(try await Self.send(URLRequest(url: embedded)) == (Data("hello".utf8), 200))
            let header = Self.client(server, mode: .headerBased)
            let headerRequest = header.secureMedia.createHeaderBasedMediaRequest(for: embedded)
            #expect(try await Self.send(headerRequest) == (Data("hello".utf8), 200))
            let file = header.requester.fileRequest(for: embedded)
            #expect(try await Self.send(file.urlRequest) == (Data("hello".utf8), 200))
            // The embedded-mode requester puts the FAT in the query of the requests it builds, as
            // CometChat's SDK does: a bare media URL reads without any other help.
            let embeddedFile = client.requester.fileRequest(for: media)
            #expect(embeddedFile.headers == nil)
            #expect(try await Self.send(embeddedFile.urlRequest) == (Data("hello".utf8), 200))

            let reads = try await Self.journal(server, "?method=GET")
            #expect(
                reads.map { $0["credential"] as? String } == ["fat-query", "fat-header", "fat-header", "fat-query"]
            )
            #expect(reads.map { $0["query"] as? String } == ["fat=REDACTED", "", "", "fat=REDACTED"])
        }
    }

    @Test(
        "the channel listing re-signs an expired link; data(for:) fetches a resized image's bytes, or names the status"
    )
    func listingAndBytes() async throws {
        try await Self.run { server in
            let client = Self.client(server)
            let png = try Data(contentsOf: Fixture.path("media/sample.png"))
            let uploaded = try await client.storage.upload(
                data: png,
                options: .init(kind: .image, channel: "messaging:general", fileName: "s.png", mimeType: "image/png")
            )
            let resized = try await client.data(
                for: client.requester.imageRequest(
                    for: uploaded.fileURL,
                    options: ImageRequestOptions(resize: CDNImageResize(width: 16))
                )
            )
            #expect(resized.starts(with: [0x89, 0x50, 0x4E, 0x47]) && resized != png)
            try await Self.advanceClock(server, 15 * 86_400)
            await #expect(throws: MockCDNClientError.self) {
                _ = try await client.data(for: client.requester.fileRequest(for: uploaded.fileURL))
            }
            let listed = try await client.storage.uploads(channel: "messaging:general", limit: 10)
            #expect(listed.map(\.name) == ["s.png"] && listed.first?.userID == "alice")
            let fresh = try #require(listed.first?.file)
            #expect(try await client.data(for: client.requester.fileRequest(for: fresh)) == png)
            await #expect(throws: MockCDNClientError.self) {
                _ = try await client.storage.uploads(channel: "messaging:other")
            }
            await #expect(throws: MockCDNClientError.self) {
                _ = try await client.storage.uploads(channel: "no-colon")
            }
        }
    }

    @Test(
        "a FAT minted through the app API reads until its expiry; upload_sizes come back as links, a bad one stores nothing"
    )
    func mintedFATAndUploadSizes() async throws {
        try await Self.run { server in
            let writer = Self.client(server, fat: nil)
            let before = server.clock.unixSeconds
            let minted = try await writer.mintFileAccessToken(ttl: 600)
            let after = server.clock.unixSeconds
            #expect(minted.userID == "alice")
            #expect((before + 600...after + 600).contains(Int64(minted.expiresAt.timeIntervalSince1970)))
            let reader = Self.client(server, fat: minted.token)

            let png = try Data(contentsOf: Fixture.path("media/sample.png"))
            let sizes = [CDNImageResize(width: 16), CDNImageResize(width: 8, height: 8, mode: .crop, crop: .top)]
            let uploaded = try await writer.storage.upload(
                data: png,
                options: .init(
                    kind: .image,
                    channel: "messaging:general",
                    fileName: "s.png",
                    mimeType: "image/png",
                    uploadSizes: sizes
                )
            )
            #expect(uploaded.sizedURLs.count == 2)
            #expect(uploaded.sizedURLs.last?.query?.contains("w=8&h=8&resize=crop&crop=top") == true)
            for link in uploaded.sizedURLs {
                let bytes = try await reader.data(for: reader.requester.imageRequest(for: link, options: .init()))
                #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) && bytes != png)
            }
            // The bare media URL reads with the minted FAT alone, until the FAT expires.
            let media = URL(string: String(uploaded.fileURL.absoluteString.prefix { $0 != "?" }))!
            #expect(try await reader.data(for: reader.requester.fileRequest(for: media)) == png)
            try await Self.advanceClock(server, 601)
            await #expect(throws: MockCDNClientError.self) {
                _ = try await reader.data(for: reader.requester.fileRequest(for: media))
            }

            await #expect(throws: MockCDNClientError.invalidResponse) {
                try await writer.mintFileAccessToken(ttl: 0)
            }
            await #expect(throws: MockCDNClientError.notLoggedIn) {
                try await MockCDNClient(configuration: .init(baseURL: server.baseURL)).mintFileAccessToken()
            }
            let listed = try await writer.storage.uploads(channel: "messaging:general").count
            await #expect(throws: MockCDNClientError.self) {
                try await writer.storage.upload(
                    data: png,
                    options: .init(kind: .image, channel: "messaging:general", uploadSizes: [CDNImageResize()])
                )
            }
            #expect(try await writer.storage.uploads(channel: "messaging:general").count == listed)
        }
    }

    @Test("CloudFront signed cookies from Set-Cookie lines open a prefix, in a request's header or a cookie store")
    func signedCookies() async throws {
        try await Self.run { server in
            let client = Self.client(server)
            let uploaded = try await client.storage.upload(data: Data("pixels".utf8), options: .init(fileName: "c.txt"))
            let media = URL(string: String(uploaded.fileURL.absoluteString.prefix { $0 != "?" }))!
            let folder = media.deletingLastPathComponent().deletingLastPathComponent().absoluteString
            let now = Int64(Date().timeIntervalSince1970)
            let signed = try CloudFrontSigner(keyPair: Self.demo.activeKeyPair).cookies(
                policy: CloudFrontPolicy(resource: folder + "*", dateLessThan: now + 600)
            )
            let lines = signed.map { "Set-Cookie: \($0.name)=\($0.value); Path=/demo/; HttpOnly" }
            let cookies = try CloudFrontCookies(setCookieLines: lines + ["Set-Cookie: other=1; Path=/"])
            #expect(cookies.path == "/demo/" && cookies.values.count == 3)

            #expect(try await Self.send(URLRequest(url: media)).1 == 401)
            var request = URLRequest(url: media)
            cookies.apply(to: &request)
            #expect(try await Self.send(request) == (Data("pixels".utf8), 200))
            let entries = try await Self.journal(server)
            #expect(entries.last?["credential"] as? String == "cloudfront-cookie")

            // Through a session's cookie store, as a web view or image loader would carry them.
            let configuration = URLSessionConfiguration.ephemeral
            let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "mockcdn-cookies-test")
            storage.removeCookies(since: .distantPast)
            for cookie in cookies.httpCookies(for: media) { storage.setCookie(cookie) }
            configuration.httpCookieStorage = storage
            let (data, response) = try await URLSession(configuration: configuration).data(from: media)
            #expect((response as? HTTPURLResponse)?.statusCode == 200 && data == Data("pixels".utf8))

            #expect(throws: MockCDNClientError.invalidResponse) {
                try CloudFrontCookies(setCookieLines: ["Set-Cookie: CloudFront-Policy=x; Path=/"])
            }
        }
    }

    @Test("an expired presigned URL is 403, and the loader's one retry with a fresh URL succeeds")
    func presignedRetry() async throws {
        try await Self.run { server in
            let client = Self.client(server)
            let uploaded = try await client.storage.upload(data: Data("pixels".utf8), options: .init(fileName: "p.txt"))
            let media = URL(string: String(uploaded.fileURL.absoluteString.prefix { $0 != "?" }))!

            let presigned = try await client.presigned.fetchPresignedURL(for: media)
            #expect(try await Self.send(URLRequest(url: presigned)).1 == 200)
            try await Self.advanceClock(server, 301)
            #expect(try await Self.send(URLRequest(url: presigned)).1 == 403)

            // The next presigned read answers 403 once (as an expired link does); the loader fetches a new
            // link and retries exactly once.
            try await Self.addFault(
                server,
                #"{"match":{"method":"GET","path":"/demo/","query":"X-Amz-Signature"},"times":1,"action":{"status":403}}"#
            )
            #expect(try await client.presigned.loadMedia(from: media) == Data("pixels".utf8))
            let after = try await Self.journal(server)
            let tail = after.suffix(4).map { "\($0["method"] as? String ?? "") \($0["status"] as? Int ?? 0)" }
            #expect(tail == ["POST 200", "GET 403", "POST 200", "GET 200"])

            // Two refusals in a row: one retry only, then the error.
            try await Self.addFault(
                server,
                #"{"match":{"method":"GET","query":"X-Amz-Signature"},"times":2,"action":{"status":403}}"#
            )
            await #expect(throws: MockCDNClientError.invalidResponse) {
                try await client.presigned.loadMedia(from: media)
            }
        }
    }

    @Test("presign errors: not logged in, invalid URL; the completion-handler form works too")
    func presignErrors() async throws {
        try await Self.run { server in
            let client = Self.client(server)
            let uploaded = try await client.storage.upload(data: Data("x".utf8), options: .init(fileName: "x.txt"))
            let media = URL(string: String(uploaded.fileURL.absoluteString.prefix { $0 != "?" }))!
            await #expect(throws: MockCDNClientError.notLoggedIn) {
                try await Self.client(server, fat: nil).presigned.fetchPresignedURL(for: media)
            }
            await #expect(throws: MockCDNClientError.notLoggedIn) {
                try await Self.client(server, fat: "garbage").presigned.fetchPresignedURL(for: media)
            }
            await #expect(throws: MockCDNClientError.invalidURL) {
                try await client.presigned.fetchPresignedURL(for: URL(string: "http://elsewhere.example/demo/x")!)
            }
            let result = await withCheckedContinuation { continuation in
                client.presigned.fetchPresignedURL(for: media) { continuation.resume(returning: $0) }
            }
            let url = try result.get()
            #expect(url.absoluteString.contains("X-Amz-Signature="))
            let offline = MockCDNClient(
                configuration: MockCDNClientConfiguration(
                    baseURL: URL(string: "http://127.0.0.1:1")!,
                    fatProvider: { "a.b" }
                )
            )
            await #expect(throws: MockCDNClientError.network) {
                try await offline.presigned.fetchPresignedURL(for: media)
            }
        }
    }

    @Test("a 5 MiB upload reports at least 3 increasing progress values; delete makes the link 404")
    func uploadProgressAndDelete() async throws {
        try await Self.run { server in
            let client = Self.client(server)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "mockcdn-client-\(UUID().uuidString).bin"
            )
            defer { try? FileManager.default.removeItem(at: file) }
            let bytes = Data((0..<(5 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try bytes.write(to: file)
            // The server reads the body at 4 MiB/s, so the client's socket fills and the body leaves in
            // several writes, each reported, however fast or loaded the machine is.
            try await Self.addFault(
                server,
                #"{"match":{"method":"POST"},"times":1,"action":{"throttle_bytes_per_sec":4194304}}"#
            )
            let reported = Mutex<[Double]>([])
            let uploaded = try await client.storage.upload(
                localURL: file,
                options: .init(
                    kind: .file,
                    channel: "messaging:general",
                    progress: { value in reported.withLock { $0.append(value) } }
                )
            )
            let values = reported.withLock { $0 }
            #expect(Set(values).count >= 3, "\(values)")
            #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }, "\(values)")
            #expect(values.last == 1)
            #expect(uploaded.fileURL.absoluteString.contains("/demo/attachments/"))
            let (read, status) = try await Self.send(URLRequest(url: uploaded.fileURL))
            #expect(status == 200 && read == bytes)

            let image = try await client.storage.upload(
                data: Data(try Data(contentsOf: Fixture.path("media/sample.png"))),
                options: .init(kind: .image, fileName: "s.png", mimeType: "image/png")
            )
            #expect(image.thumbnailURL != nil)
            let resized = client.requester.imageRequest(for: image.fileURL, options: .init(resize: .init(width: 64)))
            #expect(try await Self.send(resized.urlRequest).1 == 200)

            try await client.storage.delete(remoteURL: uploaded.fileURL)
            #expect(try await Self.send(URLRequest(url: uploaded.fileURL)).1 == 404)
            let done = await withCheckedContinuation { continuation in
                client.storage.deleteAttachment(remoteUrl: uploaded.fileURL) {
                    continuation.resume(returning: $0 == nil)
                }
            }
            #expect(!done, "a second delete reports the 404")
        }
    }

    /// `operation`'s result, or nil once `seconds` pass. A hung operation is left behind, not waited for,
    /// so a hang fails the test instead of stopping the run.
    static func finishes<T: Sendable>(
        within seconds: Int,
        _ operation: @escaping @Sendable () async -> T
    ) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let delivered = Mutex(false)
            let deliver: @Sendable (T?) -> Void = { value in
                if delivered.withLock({ done in
                    defer { done = true }
                    return !done
                }) {
                    continuation.resume(returning: value)
                }
            }
            Task { deliver(await operation()) }
            Task {
                try? await Task.sleep(for: .seconds(seconds))
                deliver(nil)
            }
        }
    }

    @Test("cancelling an upload in flight ends it with CancellationError")
    func cancellation() async throws {
        try await Self.run { server in
            let client = Self.client(server)
            try await Self.addFault(server, #"{"match":{"method":"POST"},"action":{"throttle_bytes_per_sec":1048576}}"#)
            let task = Task {
                try await client.storage.upload(data: Data(count: 1024 * 1024), options: .init(fileName: "slow.bin"))
            }
            // An event, not a pause: cancel once the server is handling the upload (the journal shows a request
            // in flight with status 0), so the body is mid-flight however slow the machine.
            let deadline = ContinuousClock.now + .seconds(30)
            while try await Self.journal(server, "?method=POST").allSatisfy({ $0["status"] as? Int != 0 }),
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(10))  // poll interval; the loop's deadline is 30 s
            }
            task.cancel()
            let outcome = try #require(await Self.finishes(within: 20) { await task.result }, "the upload hung")
            #expect(throws: CancellationError.self) { try outcome.get() }
            // (Bytes already in the socket buffers still reach the server: a cancel cannot unsend them.)

            // Cancelling at any moment, even while the body is being read, ends cleanly: no crash, no hang.
            for delay in [0, 1, 2, 5, 10, 20] {
                for _ in 0..<3 {
                    let early = Task {
                        try await client.storage.upload(
                            data: Data(count: 300 * 1024),
                            options: .init(fileName: "c.bin")
                        )
                    }
                    // Not a margin, so no 10x rule: the cancel must end the upload cleanly at any moment, and these
                    // delays only spread the moments; any machine speed gives a valid moment.
                    try await Task.sleep(for: .milliseconds(delay))  // spreads the moment of the cancel; not a margin
                    early.cancel()
                    let ended: Bool? = await Self.finishes(within: 20) {
                        _ = await early.result
                        return true
                    }
                    #expect(ended == true, "an upload cancelled after \(delay) ms hung")
                }
            }
        }
    }

    @Test("an upload cancelled before it starts ends at once with CancellationError and sends nothing")
    func cancelledBeforeStart() async throws {
        try await Self.run { server in
            let client = Self.client(server)
            for _ in 0..<20 {
                let (gate, open) = AsyncStream.makeStream(of: Void.self)
                let task = Task {
                    for await _ in gate {}
                    return try await client.storage.upload(data: Data(count: 1024), options: .init(fileName: "x.bin"))
                }
                task.cancel()
                open.finish()
                let outcome = try #require(await Self.finishes(within: 20) { await task.result }, "the upload hung")
                #expect(throws: CancellationError.self) { try outcome.get() }
            }
            let uploads = try await Self.journal(server, "?method=POST")
            #expect(uploads.isEmpty)
        }
    }
}

/// RFC 3986 encoding for the FAT providers (the client decodes what it is given).
enum PercentEncodingForTests {
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(
                charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
            )
        ) ?? text
    }
}

/// Files under `Fixtures/` in the repository.
enum Fixture {
    static func path(_ path: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures").appendingPathComponent(path)
    }
}
