import Foundation
import MockCDNCore
import Testing

@Suite("What a stored record keeps of its body's digests")
struct StoredDigestTests {
    /// Every object record (`meta/*.json`) of a data folder, as JSON.
    static func records(in folder: URL) throws -> [[String: Any]] {
        let meta = folder.appendingPathComponent("meta")
        return try FileManager.default.contentsOfDirectory(atPath: meta.path).filter { $0.hasSuffix(".json") }
            .compactMap { name in
                let data = try Data(contentsOf: meta.appendingPathComponent(name))
                let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                return (json?["metadata"] as? [String: Any]) ?? json
            }
    }

    @Test(
        "a PutObject whose signature promised no payload hash keeps its MD5 ETag and no SHA-256; a Stream upload keeps its SHA-256"
    )
    func unsignedPayloadHasNoSHA256() async throws {
        try await DiskServer.run { server in
            let body = Data("an S3 body sent through a presigned URL\n".utf8)
            let base = server.url("/")
            let authority = "\(base.host!):\(base.port!)"
            // A presigned URL, as boto3's generate_presigned_url makes: its payload is UNSIGNED-PAYLOAD.
            let credentials = try MediaApp(.demo).sigV4Credentials
            let now = try await server.clockNow()
            func presigned(_ method: String) throws -> URL {
                let url = SigV4.presignedURL(
                    method: method,
                    scheme: "http",
                    authority: authority,
                    path: "/demo/s3/unsigned.txt",
                    credentials: credentials,
                    date: now,
                    expires: 300
                )
                return try #require(URL(string: url))
            }
            let stored = try await HTTP.send(
                "PUT",
                try presigned("PUT"),
                headers: ["Content-Type": "text/plain"],
                body: body
            )
            #expect(stored.status == 200, "\(stored.text)")
            #expect(stored.header("ETag") == "\"" + Digest.md5(Array(body)).hexString + "\"")
            let unsigned = try #require(
                try Self.records(in: server.folder).first { $0["key"] as? String == "demo/s3/unsigned.txt" }
            )
            #expect(unsigned["sha256"] == nil)
            #expect(unsigned["etag"] as? String == "\"" + Digest.md5(Array(body)).hexString + "\"")
            // It reads back whole, with the same ETag.
            let read = try await HTTP.send("GET", try presigned("GET"))
            #expect(read.status == 200)
            #expect(read.body == body)
            #expect(read.header("ETag") == stored.header("ETag"))

            let uploaded = try await server.upload(
                "/channels/messaging/general/file",
                parts: [.file(Media.text, name: "note.txt", type: "text/plain")]
            )
            #expect(uploaded.status == 201, "\(uploaded.text)")
            let hashed = try Self.records(in: server.folder).filter {
                ($0["key"] as? String)?.hasSuffix("/note.txt") == true
            }
            #expect(hashed.count == 1)
            #expect(hashed.first?["sha256"] as? String == Digest.sha256(Array(Media.text)).hexString)
        }
    }
}
