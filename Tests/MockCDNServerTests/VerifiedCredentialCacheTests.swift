import Foundation
import Logging
import MockCDNCore
import Testing

@testable import MockCDNServer

/// The verified-credential cache changes no answer: each hit checks the clock again, a reset empties it,
/// failures are never kept, and faults still fire in front of it. `mockcdn_credential_cache_hits_total`
/// shows which reads were hits, so these tests see the cache at work and not only the answers.
@Suite("Verified credential cache")
struct VerifiedCredentialCacheTests {
    static func hits(_ server: DiskServer) async throws -> Int {
        let text = try await HTTP.get(server.url("/metrics")).text
        let line = try #require(
            text.split(separator: "\n").first { $0.hasPrefix("mockcdn_credential_cache_hits_total ") }
        )
        return try #require(Int(line.split(separator: " ")[1]))
    }

    /// One object and a link of each cached kind for it, made at the server's clock: a FAT (header), a
    /// SigV4 presigned URL valid 300 s, and the CloudFront link the upload answered.
    static func links(
        _ server: DiskServer
    ) async throws -> (fat: [String: String], sigV4: String, cloudFront: String, plain: String) {
        let reply = try await server.upload(parts: [.file(Media.png)])
        try #require(reply.status == 201, "\(reply.text)")
        let cloudFront = try #require(reply.json["file"] as? String)
        let plain = String(cloudFront.prefix { $0 != "?" })
        let now = try await server.clockNow()
        let app = try MediaApp(.demo)
        let fat = FileAccessToken.issue(
            FileAccessClaims(appID: "demo", userID: "alice", issuedAt: now, expiresAt: now + 300),
            key: app.secretKey
        )
        let url = try #require(URL(string: plain))
        let sigV4 = SigV4.presignedURL(
            scheme: "http",
            authority: "\(url.host!):\(url.port!)",
            path: url.path,
            credentials: app.sigV4Credentials,
            date: now,
            expires: 300
        )
        return (["fat": fat], sigV4, cloudFront, plain)
    }

    @Test(
        "hits are refused past expiry and before a SigV4 date, with the answers of a full check, and hold again in between"
    )
    func clockMoves() async throws {
        try await DiskServer.run { server in
            let (fat, sigV4, cloudFront, plain) = try await Self.links(server)
            let start = try await server.clockNow()
            func statuses() async throws -> [Int] {
                [
                    try await HTTP.get(plain, headers: fat).status,
                    try await HTTP.get(sigV4).status,
                    try await HTTP.get(cloudFront).status,
                ]
            }
            #expect(try await statuses() == [200, 200, 200])
            let before = try await Self.hits(server)
            #expect(try await statuses() == [200, 200, 200])
            #expect(try await Self.hits(server) == before + 3)

            // Past the FAT's and the SigV4 URL's expiry (300 s); the CloudFront link lasts 14 days.
            try await server.setClock(start + 301)
            let fatExpired = try await HTTP.get(plain, headers: fat)
            #expect(fatExpired.status == 403 && fatExpired.xmlError?.message == "File Access Token has expired")
            let sigV4Expired = try await HTTP.get(sigV4)
            #expect(sigV4Expired.status == 403 && sigV4Expired.xmlError?.message == "Request has expired")
            #expect(try await HTTP.get(cloudFront).status == 200)
            try await server.setClock(try Links.expiry(of: cloudFront))
            #expect(try await HTTP.get(cloudFront).status == 403)

            // Back inside every window: the remembered verifications hold again.
            try await server.setClock(start + 10)
            let back = try await Self.hits(server)
            #expect(try await statuses() == [200, 200, 200])
            #expect(try await Self.hits(server) == back + 3)

            // Before the SigV4 URL's date less the allowed skew (by an hour, so that a loaded runner's delay
            // between setting the clock and reading cannot bring it back inside): not yet valid.
            try await server.setClock(start - SigV4.allowedSkew - 3600)
            let early = try await HTTP.get(sigV4)
            #expect(early.status == 403 && early.xmlError?.message == "Request is not yet valid")
        }
    }

    @Test("a reset empties the cache; a failure is never kept; a fault installed mid-run fires in front of a hit")
    func resetFailuresFaults() async throws {
        try await DiskServer.run(fixtures: Fixture.url("media").path) { server in
            let now = try await server.clockNow()
            let fat = FileAccessToken.issue(
                FileAccessClaims(appID: "demo", userID: "alice", issuedAt: now, expiresAt: now + 3600),
                key: try MediaApp(.demo).secretKey
            )
            let pdf = server.url("/demo/fixtures/sample.pdf").absoluteString
            #expect(try await HTTP.get(pdf, headers: ["fat": fat]).status == 200)
            #expect(try await HTTP.get(pdf, headers: ["fat": fat]).status == 200)
            let warm = try await Self.hits(server)

            let reset = try await HTTP.send("POST", server.url("/_mockcdn/reset"), body: Data("{}".utf8))
            #expect(reset.status == 200)
            #expect(try await HTTP.get(pdf, headers: ["fat": fat]).status == 200)
            #expect(try await Self.hits(server) == warm, "the first read after a reset verifies in full")
            #expect(try await HTTP.get(pdf, headers: ["fat": fat]).status == 200)
            #expect(try await Self.hits(server) == warm + 1)

            let tampered = String(fat.dropLast(2)) + (fat.hasSuffix("AA") ? "BB" : "AA")
            for _ in 0..<2 {
                let refused = try await HTTP.get(pdf, headers: ["fat": tampered])
                #expect(
                    refused.status == 403 && refused.xmlError?.message == "File Access Token signature does not match"
                )
            }
            #expect(try await Self.hits(server) == warm + 1)

            let rule = try await server.addFault(
                #"{"match":{"method":"GET","path":"/demo/fixtures/"},"times":1,"action":{"status":503}}"#
            )
            #expect(try await HTTP.get(pdf, headers: ["fat": fat]).status == 503)
            #expect(try await HTTP.get(pdf, headers: ["fat": fat]).status == 200)
            #expect(try await Self.hits(server) == warm + 2)
            let entries = try await server.journal("path=/demo/fixtures/sample.pdf").suffix(2)
            #expect(entries.map { $0["fault"] as? String } == [rule, nil])
            #expect(entries.map { $0["credential"] as? String } == ["none", "fat-header"])
        }
    }

    @Test("a server's cache holds as many credentials as --credential-cache-size says")
    func sizedBySetting() async throws {
        var configuration = try ServerConfiguration.resolve(
            flags: ServeSettings(flags: [.credentialCacheSize: "64"]),
            environment: [:]
        )
        configuration.logLevel = .warning
        let services = try await makeServices(configuration, logger: Logger(label: "test"))
        #expect(services.verifiedCredentials.capacity == 64)
        let byDefault = try await makeServices(ServerConfiguration(logLevel: .warning), logger: Logger(label: "test"))
        #expect(byDefault.verifiedCredentials.capacity == 4096)
    }

    @Test("the cache itself: a failed check is not kept, a retired key re-verifies, the least recently used go first")
    func cacheUnit() throws {
        let cache = VerifiedCredentialCache(capacity: 8)
        var verifications = 0
        func check(_ id: String, now: Int64 = 100, keyHolds: Bool = true, fail: Bool = false) throws(AccessDenied) {
            try cache.check(
                ["kind", id],
                now: now,
                keyHolds: { _ in keyHolds },
                verify: { () throws(AccessDenied) in
                    verifications += 1
                    if fail { throw AccessDenied("no") }
                    return (Validity(notBefore: 50, expiresAt: 200), "K1")
                }
            )
        }
        try check("a")
        try check("a")
        #expect(verifications == 1)
        #expect(throws: AccessDenied.self) { try check("b", fail: true) }
        #expect(throws: AccessDenied.self) { try check("b", fail: true) }
        #expect(verifications == 3)
        try check("a", keyHolds: false)
        #expect(verifications == 4, "a retired key pair is checked in full")
        try check("a", now: 10)
        #expect(verifications == 5, "before notBefore the check runs in full")

        for id in 0..<8 { try check("fill\(id)") }
        #expect(cache.count <= 8)
        let before = verifications
        try check("fill7")
        #expect(verifications == before, "the most recent entry stays")
        #expect(VerifiedCredentialCache.digest(["ab", "c"]) != VerifiedCredentialCache.digest(["a", "bc"]))
    }
}
