import MockCDNClient
import MockCDNTesting
import Testing

/// A user's contract tests against MockCDN, written with nothing but the two public modules. The coverage gate
/// fails the suite when its servers, summed across resets, exercised under a tenth of the Stream, CometChat and
/// media rows of the contract (docs/report.md).
@Suite(
    "An app's media flows against MockCDN",
    .mockCDNCoverage(failUnder: 10, surfaces: ["stream", "cometchat", "media"])
)
struct ExampleConsumerTests {
    // docs/guides/stream-uploads.md: begin
    static func get(_ request: URLRequest) async throws -> (Data, Int) {
        let (data, response) = try await URLSession.shared.data(for: request)
        return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    @Test("upload, read resized, 15 days later the link is refused, and the channel listing re-signs it")
    func linkLifetime() async throws {
        try await MockCDNTestServer.withRunning { server in
            let client = server.client(user: "alice")
            let png = try Data(contentsOf: URL(fileURLWithPath: MockCDNTestServer.fixturesDirectory + "/sample.png"))
            let uploaded = try await client.storage.upload(
                data: png,
                options: AttachmentUploadOptions(
                    kind: .image,
                    channel: "messaging:general",
                    fileName: "photo.png",
                    mimeType: "image/png"
                )
            )
            let resized = client.requester.imageRequest(
                for: uploaded.fileURL,
                options: ImageRequestOptions(resize: CDNImageResize(width: 32))
            )
            let (thumbnail, status) = try await Self.get(resized.urlRequest)
            #expect(status == 200)
            #expect(thumbnail.starts(with: [0x89, 0x50, 0x4E, 0x47]))

            server.advanceClock(days: 15)
            #expect(try await Self.get(URLRequest(url: uploaded.fileURL)).1 == 403)

            var listing = URLRequest(url: server.url("/channels/messaging/general/uploads?api_key=demo-key"))
            listing.setValue(server.serverToken(), forHTTPHeaderField: "Authorization")
            listing.setValue("jwt", forHTTPHeaderField: "stream-auth-type")
            let (body, listed) = try await Self.get(listing)
            #expect(listed == 200)
            let uploads = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            let fresh = try #require((uploads?["uploads"] as? [[String: Any]])?.first?["file"] as? String)
            #expect(try await Self.get(URLRequest(url: try #require(URL(string: fresh)))).1 == 200)
        }
    }
    // docs/guides/stream-uploads.md: end

    // docs/guides/cometchat-secure-media.md: begin
    @Test("a FAT reads in embedded mode (query) and in header mode (header)")
    func fileAccessTokenModes() async throws {
        try await MockCDNTestServer.withRunning { server in
            let pdf = server.url("/demo/fixtures/sample.pdf")
            #expect(try await Self.get(URLRequest(url: pdf)).1 == 401)
            for mode in [SecureMediaMode.embedded, .headerBased] {
                let request = server.client(mode: mode).requester.fileRequest(for: pdf)
                #expect(try await Self.get(request.urlRequest).1 == 200, "\(mode)")
            }
            let reads = try await server.journal(method: "GET", path: "/demo/fixtures/sample.pdf")
            #expect(reads.map(\.credential) == ["none", "fat-query", "fat-header"])
        }
    }
    // docs/guides/cometchat-secure-media.md: end

    // README: begin
    @Test("a fault makes the next read fail, and the journal names it")
    func faultAndJournal() async throws {
        try await MockCDNTestServer.withRunning { server in
            let id = try await server.addFault(
                #"{"match":{"method":"GET","path":"/demo/fixtures/"},"times":1,"action":{"status":503}}"#
            )
            let request = server.client().requester.fileRequest(for: server.url("/demo/fixtures/sample.pdf"))
            let (_, first) = try await URLSession.shared.data(for: request.urlRequest)
            let (_, second) = try await URLSession.shared.data(for: request.urlRequest)
            #expect((first as? HTTPURLResponse)?.statusCode == 503)
            #expect((second as? HTTPURLResponse)?.statusCode == 200)
            let entries = try await server.journal(path: "/demo/fixtures/sample.pdf")
            #expect(entries.map(\.status) == [503, 200])
            #expect(entries.map(\.fault) == [id, nil])
            try await server.reset()
            #expect(try await server.journal().isEmpty)
        }
    }
    // README: end

    @Test("the README and the guides show the examples marked here as they are, so their examples compile")
    func documentsShowThisCode() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let root = folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        // The lines between `// MARKER: begin` and `// MARKER: end` in each file. A README marker's lines are shown
        // in README.md, a guide's in the guide it names (Tests/compat/test_doc_snippets.py checks the same).
        let excerpts = [
            ("ExampleConsumerTests.swift", "README"),
            ("SharedServerTests.swift", "README shared"),
            ("ExampleConsumerTests.swift", "docs/guides/stream-uploads.md"),
            ("ExampleConsumerTests.swift", "docs/guides/cometchat-secure-media.md"),
        ]
        for (file, marker) in excerpts {
            let document = marker.hasPrefix("README") ? "README.md" : marker
            let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
            let source = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
            let begin = try #require(lines.firstIndex { $0.hasSuffix("// \(marker): begin") })
            let end = try #require(lines.firstIndex { $0.hasSuffix("// \(marker): end") })
            // As deep as the marker, the excerpt's own indentation is dropped.
            let indent = lines[begin].prefix { $0 == " " }.count
            let excerpt = lines[(begin + 1)..<end].map { $0.dropFirst(indent) }.joined(separator: "\n")
            #expect(text.contains(excerpt), "\(document) does not show \(file)'s \(marker) excerpt as it is")
        }
    }
}
