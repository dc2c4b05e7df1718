import Foundation
import MockCDNClient
import MockCDNCore
import MockCDNServer
import MockCDNTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads as players and image caches make them: byte ranges (RFC 9110 section 14), revalidation by entity tag,
/// links a backend signed, and answers cut off mid-stream.
@Suite("Client media reads")
struct ClientMediaReadTests {
    @Test(
        "range reads answer 206 with the bytes asked for; past the end is 416",
        arguments: [
            (MockCDNClient.ByteRange.bytes(0...3), "bytes=0-3"),
            (.from(10), "bytes=10-"),
            (.last(4), "bytes=-4"),
        ]
    )
    func ranges(range: MockCDNClient.ByteRange, header: String) async throws {
        #expect(range.headerValue == header)
        try await ClientEndToEndTests.run { server in
            let client = ClientEndToEndTests.client(server, mode: .headerBased)
            let pdf = client.requester.fileRequest(for: server.url("/demo/fixtures/sample.pdf"))
            let whole = try await client.read(pdf)
            #expect(whole.status == 200 && whole.contentRange == nil)
            let part = try await client.read(pdf, range: range)
            let expected: Data =
                switch range {
                case .bytes(let bytes): whole.data[bytes]
                case .from(let first): whole.data.dropFirst(first)
                case .last(let count): whole.data.suffix(count)
                }
            #expect(part.status == 206 && part.data == expected)
            #expect(part.contentRange?.hasSuffix("/\(whole.data.count)") == true)
            let beyond = await #expect(throws: MockCDNClientError.invalidResponse) {
                try await client.read(pdf, range: .from(whole.data.count))
            }
            #expect(beyond?.detail.contains("416") == true)
            let statuses = try await ClientEndToEndTests.journal(server).map { $0["status"] as? Int }
            #expect(statuses == [200, 206, 416])
        }
    }

    @Test("a cached copy revalidates by its ETag: 304 while it matches, 200 with the new bytes once replaced")
    func revalidation() async throws {
        try await ClientEndToEndTests.run { server in
            let client = ClientEndToEndTests.client(server)
            let uploaded = try await client.storage.upload(data: Data("first".utf8), options: .init(fileName: "a.txt"))
            let request = client.requester.fileRequest(for: uploaded.fileURL)
            let first = try await client.read(request)
            let etag = try #require(first.etag)
            let unchanged = try await client.read(request, ifNoneMatch: etag)
            #expect(unchanged.isNotModified && unchanged.data.isEmpty)
            let other = try await client.read(request, ifNoneMatch: "\"not-the-etag\"")
            #expect(other.status == 200 && other.data == Data("first".utf8) && other.etag == etag)
            let statuses = try await ClientEndToEndTests.journal(server, "?method=GET").map { $0["status"] as? Int }
            #expect(statuses == [200, 304, 200])
        }
    }

    @Test("a SigV2 link a backend presigned reads in an app without a FAT")
    func sigV2Link() async throws {
        try await ClientEndToEndTests.run { server in
            // A Stream app: a user token, no FAT; its backend hands it links signed with the app's secret.
            let client = ClientEndToEndTests.client(server, fat: nil)
            let link = SigV2.presignedURL(
                scheme: "http",
                authority: "\(server.baseURL.host ?? "127.0.0.1"):\(server.baseURL.port ?? 80)",
                path: "/demo/fixtures/sample.pdf",
                accessKeyID: AppConfiguration.demo.apiKey,
                secretAccessKey: AppConfiguration.demo.apiSecret,
                expires: server.clock.unixSeconds + 300
            )
            let bytes = try await client.data(for: client.requester.fileRequest(for: try #require(URL(string: link))))
            #expect(bytes.starts(with: Array("%PDF".utf8)))
            let credentials = try await ClientEndToEndTests.journal(server).map { $0["credential"] as? String }
            #expect(credentials == ["presigned-v2"])
        }
    }

    @Test("a chunked answer reset mid-stream is a network error, not short data")
    func reset() async throws {
        try await ClientEndToEndTests.run { server in
            let client = ClientEndToEndTests.client(server)
            let pdf = client.requester.fileRequest(for: server.url("/demo/fixtures/sample.pdf"))
            try await ClientEndToEndTests.addFault(
                server,
                #"{"match":{"path":"/demo/fixtures/sample.pdf"},"times":1,"action":{"reset_after_bytes":10}}"#
            )
            await #expect(throws: MockCDNClientError.network) { try await client.read(pdf) }
            #expect(try await client.read(pdf).status == 200)
            let kinds = try await ClientEndToEndTests.journal(server).map { $0["fault_kinds"] as? [String] ?? [] }
            #expect(kinds == [["reset"], []])
        }
    }

    @Test("an api_key of no app in the configuration fails the upload, naming the server's 401")
    func wrongAPIKey() async throws {
        try await ClientEndToEndTests.run { server in
            let client = MockCDNClient(
                configuration: MockCDNClientConfiguration(
                    baseURL: server.baseURL,
                    apiKey: "no-such-key",
                    userTokenProvider: { ClientContractCoverageTests.userJWT }
                )
            )
            let failure = await #expect(throws: MockCDNClientError.invalidResponse) {
                try await client.storage.upload(data: Data("x".utf8), options: .init(fileName: "x.txt"))
            }
            #expect(failure?.detail.contains("401") == true)
            let reasons = try await ClientEndToEndTests.journal(server).map { $0["reason"] as? String ?? "" }
            #expect(reasons.count == 1 && reasons[0].contains("api_key not valid"))
        }
    }
}
