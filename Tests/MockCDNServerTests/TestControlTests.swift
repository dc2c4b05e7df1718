import Foundation
import MockCDNCore
import MockCDNServer
import MockCDNTesting
import Testing

@Suite("Test control: journal, faults, reset, metrics")
struct TestControlTests {
    static let megabyte = Data((0..<(1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    /// Uploads a file attachment and returns its signed link.
    static func uploadFile(_ server: DiskServer, _ data: Data, name: String = "f.bin") async throws -> String {
        let reply = try await server.upload(
            "/channels/messaging/general/file",
            parts: [.file(data, name: name, type: "application/octet-stream")]
        )
        try #require(reply.status == 201, "\(reply.text)")
        return try #require(reply.json["file"] as? String)
    }

    static func mintFAT(_ server: DiskServer) async throws -> String {
        let reply = try await HTTP.send(
            "POST",
            server.url("/v1/apps/demo/fat"),
            headers: ["Authorization": Tokens.server],
            body: Data(#"{"user_id":"alice"}"#.utf8)
        )
        return try #require(reply.json["fat"] as? String)
    }

    @Test("an error after a credential authorised the request still names it; a refused one names none; no note leaves")
    func credentialOnErrors() async throws {
        try await DiskServer.run { server in
            let fat = try await Self.mintFAT(server)
            let missing = try await HTTP.get(server.url("/demo/nothing/here.txt"), headers: ["fat": fat])
            let userOnServerRoute = try await HTTP.get(
                server.url("/app?api_key=demo-key"),
                headers: Tokens.headers(Tokens.user("alice"))
            )
            let badToken = try await HTTP.get(server.url("/app?api_key=demo-key"), headers: Tokens.headers("x.y.z"))
            let badFAT = try await HTTP.send(
                "POST",
                server.url("/v1/apps/demo/presign"),
                headers: ["fat": fat + "x"],
                body: Data(#"{"url":"http://127.0.0.1/demo/a.txt"}"#.utf8)
            )
            let statuses = [missing.status, userOnServerRoute.status, badToken.status, badFAT.status]
            #expect(statuses == [404, 403, 401, 401])
            for reply in [missing, userOnServerRoute, badToken, badFAT] {
                #expect(!reply.headers.keys.contains { $0.contains("mockcdn-internal") })
            }
            let entries = try await server.journal()
            let credentials = entries.suffix(4).map { $0["credential"] as? String ?? "?" }
            #expect(credentials == ["fat-header", "jwt", "none", "none"])
        }
    }

    @Test("the journal records each request with its credential source, redacted query, status and bytes")
    func journal() async throws {
        try await DiskServer.run { server in
            let link = try await Self.uploadFile(server, Media.text, name: "j.txt")
            let unsigned = String(link.prefix { $0 != "?" })
            let fat = try await Self.mintFAT(server)
            let presign = try await HTTP.send(
                "POST",
                server.url("/v1/apps/demo/presign"),
                headers: ["fat": fat],
                body: Data(#"{"url":"\#(unsigned)"}"#.utf8)
            )
            let presigned = try #require(presign.json["url"] as? String)
            _ = try await HTTP.get(unsigned, headers: ["fat": fat])
            _ = try await HTTP.get(unsigned + "?fat=" + PercentEncoding.encode(fat))
            _ = try await HTTP.get(presigned)
            _ = try await HTTP.get(link)
            _ = try await HTTP.get(unsigned)
            _ = try await HTTP.get(server.url("/_mockcdn/clock"))

            let entries = try await server.journal()
            let sources = entries.map { $0["credential"] as? String ?? "?" }
            #expect(
                sources == ["jwt", "jwt", "fat-header", "fat-header", "fat-query", "presigned", "cloudfront", "none"]
            )
            let statuses = entries.map { $0["status"] as? Int ?? 0 }
            #expect(statuses == [201, 200, 200, 200, 200, 200, 200, 401])
            #expect(!entries.contains { ($0["path"] as? String)?.hasPrefix("/_mockcdn") == true })

            let text = String(decoding: try JSONSerialization.data(withJSONObject: entries), as: UTF8.self)
            #expect(!text.contains(fat) && !text.contains(PercentEncoding.encode(fat)), "a FAT reached the journal")
            let signature = try #require(
                URLComponents(string: link)?.queryItems?.first { $0.name == "Signature" }?.value
            )
            #expect(!text.contains(signature), "a CloudFront signature reached the journal")
            #expect(entries[4]["query"] as? String == "fat=REDACTED")
            let presignedQuery = try #require(entries[5]["query"] as? String)
            #expect(presignedQuery.contains("X-Amz-Signature=REDACTED") && presignedQuery.contains("X-Amz-Expires=300"))
            #expect((entries[6]["query"] as? String)?.contains("Key-Pair-Id=K2JCJMDEHXQW5F&Policy=") == true)
            #expect((entries[6]["query"] as? String)?.contains("&Signature=REDACTED") == true)

            let upload = entries[0]
            #expect((upload["bytes_in"] as? Int ?? 0) > Media.text.count)
            #expect(entries[4]["bytes_out"] as? Int == Media.text.count)
            #expect(entries.allSatisfy { ($0["duration_ms"] as? Double ?? -1) >= 0 })
            #expect(entries.allSatisfy { $0["fault"] is NSNull })

            #expect(try await server.journal("method=POST").count == 3)
            #expect(try await server.journal("status=401").count == 1)
            #expect(try await server.journal("path=/v1/apps/").count == 2)
            #expect(try await HTTP.get(server.url("/_mockcdn/requests?status=abc")).status == 400)
            let cleared = try await HTTP.send("DELETE", server.url("/_mockcdn/requests"))
            #expect(cleared.status == 204)
            #expect(try await server.journal().isEmpty)
        }
    }

    @Test("the journal is a bounded ring: it keeps the newest entries")
    func journalBound() async throws {
        try await DiskServer.run(journalCapacity: 3) { server in
            for index in 0..<5 { _ = try await HTTP.get(server.url("/demo/x/\(index).txt")) }
            let paths = try await server.journal().map { $0["path"] as? String ?? "" }
            #expect(paths == ["/demo/x/2.txt", "/demo/x/3.txt", "/demo/x/4.txt"])
        }
    }

    @Test("'two 503s then succeed' and '403 once' are one rule each; rules list their remaining hits")
    func statusFaults() async throws {
        try await DiskServer.run { server in
            let link = try await Self.uploadFile(server, Media.text)
            let id = try await server.addFault(
                #"{"match":{"method":"GET","path":"/demo/attachments/*"},"times":2,"action":{"status":503,"body":"try later"}}"#
            )
            var statuses: [Int] = []
            for _ in 0..<3 { statuses.append(try await HTTP.get(link).status) }
            #expect(statuses == [503, 503, 200])
            let listed = try await HTTP.get(server.url("/_mockcdn/faults"))
            let rule = try #require((listed.json["faults"] as? [[String: Any]])?.first)
            #expect(rule["id"] as? String == id)
            #expect(rule["remaining"] as? Int == 0)
            #expect(rule["hits"] as? Int == 2)
            let faulted = try await server.journal().filter { $0["fault"] as? String == id }
            #expect(faulted.count == 2 && faulted.allSatisfy { $0["status"] as? Int == 503 })

            _ = try await server.addFault(#"{"match":{"path":"/demo/"},"times":1,"action":{"status":403}}"#)
            #expect(try await HTTP.get(link).status == 403)
            #expect(try await HTTP.get(link).status == 200)

            // A query-parameter match only hits requests that carry it; probability 0 never fires.
            _ = try await server.addFault(#"{"match":{"query":"w"},"action":{"status":500}}"#)
            _ = try await server.addFault(#"{"match":{"method":"GET"},"probability":0,"action":{"status":418}}"#)
            #expect(try await HTTP.get(link).status == 200)
            #expect(try await HTTP.get(link + "&w=10").status == 500)
            // A catch-all rule never reaches the control routes, however the path is written.
            _ = try await server.addFault(#"{"action":{"status":503}}"#)
            #expect(
                try await HTTP.get(URL(string: server.server.baseURL.absoluteString + "//_mockcdn/faults")!).status
                    == 200
            )
            #expect(try await HTTP.get(server.url("/metrics")).status == 200)
            let clear = try await HTTP.send(
                "DELETE",
                URL(string: server.server.baseURL.absoluteString + "//_mockcdn/faults")!
            )
            #expect(clear.status == 204)
            #expect(try await server.journal().allSatisfy { !(($0["path"] as? String) ?? "").contains("_mockcdn") })
            #expect(try await HTTP.get(link + "&w=10").status == 400)
        }
    }

    @Test("a status fault on a bodiless status (204, 304) or a HEAD sends no body, so the connection stays sound")
    func bodilessStatus() async throws {
        try await DiskServer.run { server in
            let link = try await Self.uploadFile(server, Media.text)
            _ = try await server.addFault(
                #"{"match":{"method":"GET"},"times":1,"action":{"status":204,"body":"HTTP/1.1 200 OK\r\n\r\nSMUGGLED"}}"#
            )
            _ = try await server.addFault(
                #"{"match":{"method":"HEAD"},"times":1,"action":{"status":503,"body":"busy"}}"#
            )
            let first = try await HTTP.get(link)
            #expect(first.status == 204 && first.body.isEmpty)
            let second = try await HTTP.get(link)
            #expect(second.status == 200 && second.body == Media.text)
            let head = try await HTTP.send("HEAD", try #require(URL(string: link)))
            #expect(head.status == 503 && head.body.isEmpty)
        }
    }

    @Test("a delay holds the answer back")
    func delay() async throws {
        try await DiskServer.run { server in
            let link = try await Self.uploadFile(server, Media.text)
            _ = try await server.addFault(#"{"match":{"path":"/demo/attachments/"},"action":{"delay_ms":400}}"#)
            let started = ContinuousClock.now
            let reply = try await HTTP.get(link)
            #expect(reply.status == 200 && reply.body == Media.text)
            #expect(ContinuousClock.now - started >= .milliseconds(400))
        }
    }

    @Test("a throttled download of 1 MiB at 256 KiB/s takes at least 3 s and arrives whole")
    func throttledDownload() async throws {
        try await DiskServer.run { server in
            let link = try await Self.uploadFile(server, Self.megabyte)
            _ = try await server.addFault(
                #"{"match":{"method":"GET","path":"/demo/attachments/"},"action":{"throttle_bytes_per_sec":262144}}"#
            )
            let started = ContinuousClock.now
            let reply = try await HTTP.get(link)
            let elapsed = ContinuousClock.now - started
            #expect(reply.body == Self.megabyte)
            #expect(elapsed >= .seconds(3), "\(elapsed)")
            #expect(try await server.journal("method=GET").last?["bytes_out"] as? Int == Self.megabyte.count)
        }
    }

    @Test("a throttled upload is read at the given rate")
    func throttledUpload() async throws {
        try await DiskServer.run { server in
            _ = try await server.addFault(
                #"{"match":{"method":"POST","path":"/channels/"},"action":{"throttle_bytes_per_sec":131072}}"#
            )
            let started = ContinuousClock.now
            _ = try await Self.uploadFile(server, Data(Self.megabyte.prefix(256 * 1024)))
            #expect(ContinuousClock.now - started >= .milliseconds(1500))
        }
    }

    @Test(
        "truncate and reset cut the body: the client sees an error, not a short success",
        arguments: ["truncate", "reset"]
    )
    func cuts(_ kind: String) async throws {
        try await DiskServer.run { server in
            let link = try await Self.uploadFile(server, Self.megabyte)
            _ = try await server.addFault(
                #"{"match":{"method":"GET","path":"/demo/attachments/"},"times":1,"action":{"\#(kind)_after_bytes":1000}}"#
            )
            await #expect(throws: (any Error).self) { _ = try await HTTP.get(link) }
            let entry = try #require(try await server.journal("method=GET").last)
            #expect(entry["bytes_out"] as? Int == 1000)
            #expect(try await HTTP.get(link).body == Self.megabyte)
        }
    }

    @Test("bad fault rules are 400; deleting an unknown rule is 404")
    func badRules() async throws {
        try await DiskServer.run { server in
            for body in [
                "nope", #"{"times":0}"#, #"{"probability":1.5}"#, #"{"action":{"status":99}}"#,
                #"{"action":{"delay_ms":-1}}"#, #"{"action":{"truncate_after_bytes":-5}}"#,
            ] {
                let reply = try await HTTP.send("POST", server.url("/_mockcdn/faults"), body: Data(body.utf8))
                #expect(reply.status == 400, "\(body): \(reply.text)")
            }
            let id = try await server.addFault(#"{"action":{"status":503}}"#)
            #expect(try await HTTP.send("DELETE", server.url("/_mockcdn/faults/\(id)")).status == 204)
            #expect(try await HTTP.send("DELETE", server.url("/_mockcdn/faults/\(id)")).status == 404)
        }
    }

    @Test("a misspelt member, an empty action, or an unknown filter is 400 naming it, and nothing is installed")
    func strictInput() async throws {
        try await DiskServer.run { server in
            for (method, path, body, message) in [
                (
                    "POST", "/_mockcdn/faults", #"{"match":{"methd":"GET"},"action":{"status":503}}"#,
                    "unknown member match.methd"
                ),
                ("POST", "/_mockcdn/faults", #"{"action":{"staus":503}}"#, "unknown member action.staus"),
                ("POST", "/_mockcdn/faults", #"{"actions":{"status":503}}"#, "unknown member actions"),
                ("POST", "/_mockcdn/faults", #"{"match":{"method":"GET"}}"#, "action must set status"),
                ("POST", "/_mockcdn/faults", #"{"action":{}}"#, "action must set status"),
                ("PUT", "/_mockcdn/clock", #"{"now":1,"tz":"UTC"}"#, "unknown member tz"),
                ("PUT", "/_mockcdn/clock", #"{"now":"yesterday"}"#, "now must be Unix seconds or an ISO 8601"),
                ("POST", "/_mockcdn/clock/advance", #"{"second":5}"#, "unknown member second"),
                ("GET", "/_mockcdn/requests?methd=GET", "", "unknown filter methd"),
            ] {
                let reply = try await HTTP.send(method, server.url(path), body: body.isEmpty ? nil : Data(body.utf8))
                #expect(reply.status == 400, "\(body)")
                #expect(
                    ((reply.json["error"] as? [String: Any])?["message"] as? String)?.contains(message) == true,
                    "\(body): \(reply.text)"
                )
            }
            #expect((try await HTTP.get(server.url("/_mockcdn/faults")).json["faults"] as? [Any])?.isEmpty == true)
            #expect(try await HTTP.get(server.url("/_mockcdn/requests?method=GET&path=/demo&status=200")).status == 200)
        }
    }

    @Test("POST /_mockcdn/tokens mints JWTs and FATs at the server's clock that the routes accept; bad bodies are 400")
    func tokens() async throws {
        try await DiskServer.run { server in
            try await server.setClock(1_900_000_000)
            func mint(_ body: String) async throws -> Reply {
                try await HTTP.send("POST", server.url("/_mockcdn/tokens"), body: Data(body.utf8))
            }
            let fat = try await mint(#"{"kind":"fat","user_id":"alice","ttl":600}"#)
            #expect(fat.status == 200, "\(fat.text)")
            let issued = try #require(fat.json["issued_at"] as? Int64)
            // The clock runs on from the value set; a loaded machine may take seconds to get to the mint.
            #expect((1_900_000_000...1_900_000_060).contains(issued))
            #expect(fat.json["expires_at"] as? Int64 == issued + 600)
            let fatToken = try #require(fat.json["token"] as? String)
            let pdf = server.url("/demo/nothing.pdf")
            #expect(try await HTTP.get(pdf, headers: ["fat": fatToken]).status == 404, "the FAT passes; no object")
            try await server.advanceClock(601)
            #expect(try await HTTP.get(pdf, headers: ["fat": fatToken]).status == 403, "expired at the server's clock")

            let serverToken = try #require(try await mint(#"{"kind":"server"}"#).json["token"] as? String)
            #expect(
                try await HTTP.get(server.url("/app?api_key=demo-key"), headers: Tokens.headers(serverToken)).status
                    == 200
            )
            let user = try await mint(#"{"kind":"user","user_id":"bob","ttl":60}"#)
            let userToken = try #require(user.json["token"] as? String)
            #expect(
                try await HTTP.get(server.url("/app?api_key=demo-key"), headers: Tokens.headers(userToken)).status
                    == 403
            )

            for (body, message) in [
                (#"{"kind":"user"}"#, "user_id is required for a user token: 1 to 255 characters"),
                (#"{"kind":"fat","user_id":""}"#, "user_id is required for a fat token: 1 to 255 characters"),
                (#"{"kind":"root"}"#, "kind must be user, server or fat"),
                (#"{"kind":"fat","user_id":"a","ttl":0}"#, "ttl must be 1...2592000 seconds"),
                (#"{"kind":"server","app_id":"nope"}"#, "app_id nope is not an app of this server"),
                (#"{"kind":"server","user":"a"}"#, "unknown member user"),
            ] {
                let reply = try await mint(body)
                #expect(reply.status == 400, "\(body)")
                #expect(((reply.json["error"] as? [String: Any])?["message"] as? String) == message, "\(reply.text)")
            }
        }
    }

    @Test("GET / and GET /_mockcdn describe the server; journal entries carry an id, the real time and the clock")
    func discoverability() async throws {
        try await DiskServer.run(fixtures: Fixture.url("media").path) { server in
            let root = try await HTTP.get(server.url("/"))
            #expect(root.status == 200 && root.json["name"] as? String == "MockCDN")
            #expect(root.json["version"] as? String == mockCDNVersion && root.json["apps"] == nil)
            let index = try await HTTP.get(server.url("/_mockcdn"))
            #expect(index.status == 200)
            #expect((index.json["apps"] as? [[String: Any]])?.map { $0["app_id"] as? String } == ["demo"])
            #expect(index.json["fixtures"] as? Int == (try server.storedCount()))
            #expect(!index.text.contains(AppConfiguration.demo.apiSecret))
            #expect(root.json["openapi"] as? String == "/_mockcdn/openapi.yaml")
            let document = try await HTTP.get(server.url("/_mockcdn/openapi.yaml"))
            let repositoryCopy = try String(contentsOf: Fixture.url("../openapi.yaml"), encoding: .utf8)
            #expect(document.status == 200 && document.text == repositoryCopy)

            try await server.setClock(2_000_000_000)
            let before = Date().timeIntervalSince1970
            let (_, window) = try await server.bracketed {
                _ = try await HTTP.get(server.url("/demo/none.txt"))
                _ = try await HTTP.get(server.url("/demo/none.txt"))
            }
            let after = Date().timeIntervalSince1970
            let entries = try await server.journal("path=/demo/none.txt")
            let ids = entries.map { $0["id"] as? String ?? "" }
            #expect(ids.count == 2 && Set(ids).count == 2 && ids.allSatisfy { $0.hasPrefix("r") })
            for entry in entries {
                // Milliseconds in the journal: the real time rounds by at most half of one.
                #expect((before - 0.001...after + 0.001).contains(entry["received_at"] as? Double ?? 0))
                #expect(window.contains(entry["clock"] as? Int64 ?? 0))
            }
        }
    }

    @Test("the clock takes ISO 8601 as well as Unix seconds")
    func clockISO8601() async throws {
        try await DiskServer.run { server in
            for (text, seconds) in [
                ("2026-11-23T10:00:00Z", 1_795_428_000), ("2026-11-23T11:00:00+01:00", 1_795_428_000),
                ("2030-01-01T00:00:00.750Z", 1_893_456_000),
            ] as [(String, Int64)] {
                let started = ContinuousClock.now
                let reply = try await HTTP.send(
                    "PUT",
                    server.url("/_mockcdn/clock"),
                    body: Data(#"{"now":"\#(text)"}"#.utf8)
                )
                #expect(reply.status == 200, "\(text): \(reply.text)")
                let now = try await server.clockNow()
                let since = (ContinuousClock.now - started).components.seconds + 1
                #expect((seconds...seconds + since).contains(now), "\(text)")
            }
        }
    }

    @Test("reset brings back the startup state in well under a second: fixtures, no uploads, clock, faults, journal")
    func reset() async throws {
        let fixtures = Fixture.url("media").path
        try await DiskServer.run(fixtures: fixtures) { server in
            let fixtureCount = try server.storedCount()
            #expect(fixtureCount >= 12)
            let link = try await Self.uploadFile(server, Media.text)
            try await server.advanceClock(86_400)
            _ = try await server.addFault(#"{"action":{"status":503}}"#)
            #expect(try server.storedCount() == fixtureCount + 1)

            let reply = try await HTTP.send(
                "POST",
                server.url("/_mockcdn/reset"),
                headers: ["Content-Type": "application/json"]
            )
            #expect(reply.status == 200)
            #expect(try server.storedCount() == fixtureCount)
            #expect(try await HTTP.get(link).status == 404)
            let realBefore = Int64(Date().timeIntervalSince1970)
            let now = try await server.clockNow()
            #expect((realBefore...Int64(Date().timeIntervalSince1970)).contains(now), "the clock is real time again")
            #expect((try await HTTP.get(server.url("/_mockcdn/faults")).json["faults"] as? [Any])?.isEmpty == true)
            #expect(try await server.journal().count == 1)  // the 404 after the reset
        }
    }

    @Test("fixtures are preloaded at demo/fixtures with their type and image dimensions")
    func fixtures() async throws {
        let fixtures = Fixture.url("media").path
        try await DiskServer.run(fixtures: fixtures) { server in
            let app = try MediaApp(.demo)
            for (name, type, width) in [
                ("sample.jpg", "image/jpeg", 320), ("animated.gif", "image/gif", 120), ("sample.mp4", "video/mp4", 0),
                ("sample.pdf", "application/pdf", 0), ("large-4100x4100.jpg", "image/jpeg", 4100),
            ] {
                let key = try ObjectKey("demo/fixtures/\(name)")
                let link = try CloudFrontSigner(keyPair: app.activeKeyPair)
                    .cannedURL(server.server.baseURL.absoluteString + "/" + key.rawValue, expires: 4_000_000_000)
                let reply = try await HTTP.get(link)
                #expect(reply.status == 200, "\(name)")
                #expect(reply.header("content-type") == type, "\(name)")
                #expect(reply.body == (try Data(contentsOf: Fixture.url("media/\(name)"))), "\(name)")
                if width > 0 { #expect(reply.image?.width == width, "\(name)") }
            }
        }
    }

    @Test("metrics count requests by route and status, upload bytes, resizes and variant cache hits")
    func metrics() async throws {
        try await DiskServer.run { server in
            let upload = try await server.upload(parts: [.file(Media.png, name: "m.png", type: "image/png")])
            let link = try #require(upload.json["file"] as? String)
            _ = try await HTTP.get(link + "&w=10")
            _ = try await HTTP.get(link + "&w=10")
            _ = try await HTTP.get(server.url("/nope"))
            let reply = try await HTTP.get(server.url("/metrics"))
            #expect(reply.status == 200)
            #expect(reply.header("content-type")?.hasPrefix("text/plain") == true)
            let text = reply.text
            #expect(
                text.contains(
                    #"mockcdn_requests_total{route="/channels/{type}/{id}/image",method="POST",status="201"} 1"#
                )
            )
            #expect(text.contains(#"mockcdn_requests_total{route="/{app}/**",method="GET",status="200"} 2"#))
            #expect(text.contains(#"status="404"} 1"#))
            #expect(text.contains("mockcdn_variant_cache_hits_total 1"))
            #expect(text.contains("mockcdn_variant_cache_misses_total 1"))
            #expect(text.contains("mockcdn_resize_duration_seconds_count 1"))
            let uploaded = text.split(separator: "\n").first { $0.hasPrefix("mockcdn_upload_bytes_total ") }
            #expect((uploaded.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0) > Double(Media.png.count))
        }
    }
}
