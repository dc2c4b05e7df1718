import MockCDNClient
import MockCDNTesting
import Synchronization
import Testing

// README shared: begin
/// One server for the suite (`.mockCDN`); `.serialized`, because its tests reset the server and move its clock.
@Suite("One server for the whole suite", .mockCDN, .serialized)
struct SharedServerTests {
    @Test("a FAT minted through the app API reads a bare media URL, and expires with the clock")
    func mintedFileAccessToken() async throws {
        let server = try RunningMockCDN.shared
        try await server.reset()
        let minted = try await server.client().mintFileAccessToken(ttl: 300)
        let reader = MockCDNClient(
            configuration: MockCDNClientConfiguration(baseURL: server.baseURL, fatProvider: { minted.token })
        )
        let pdf = reader.requester.fileRequest(for: server.url("/demo/fixtures/sample.pdf"))
        #expect(try await reader.data(for: pdf).starts(with: Array("%PDF".utf8)))
        server.advanceClock(seconds: 301)
        await #expect(throws: MockCDNClientError.self) { try await reader.data(for: pdf) }
    }
}
// README shared: end

extension SharedServerTests {
    /// The base URL each test saw: one server means one URL.
    static let seen = Mutex<Set<URL>>([])

    /// The suite's server, reset, after checking it is the one every other test saw.
    static func server() async throws -> RunningMockCDN {
        let server = try RunningMockCDN.shared
        try await server.reset()
        Self.seen.withLock { _ = $0.insert(server.baseURL) }
        #expect(Self.seen.withLock { $0.count } == 1)
        return server
    }

    @Test("every test of the suite sees the same server")
    func sameServer() async throws {
        _ = try await Self.server()
    }

    @Test("an image upload answers a link for each of its upload_sizes")
    func uploadSizes() async throws {
        let server = try await Self.server()

        let client = server.client()
        let png = try Data(contentsOf: URL(fileURLWithPath: MockCDNTestServer.fixturesDirectory + "/sample.png"))
        let uploaded = try await client.storage.upload(
            data: png,
            options: AttachmentUploadOptions(
                kind: .image,
                fileName: "photo.png",
                mimeType: "image/png",
                uploadSizes: [CDNImageResize(width: 24), CDNImageResize(width: 12, height: 12, mode: .crop)]
            )
        )
        #expect(uploaded.sizedURLs.count == 2)
        for link in uploaded.sizedURLs {
            let bytes = try await client.data(for: client.requester.imageRequest(for: link, options: .init()))
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) && bytes != png)
        }
    }

    @Test("outside a .mockCDN suite there is no shared server, and the error says what to do")
    func notInSuite() {
        let error = RunningMockCDN.$current.withValue(nil) { () -> (any Error)? in
            do {
                _ = try RunningMockCDN.shared
                return nil
            } catch {
                return error
            }
        }
        #expect(error is MockCDNTestServer.NotInSuite)
        #expect("\(error.map { "\($0)" } ?? "")".contains(".mockCDN trait"))
    }
}
