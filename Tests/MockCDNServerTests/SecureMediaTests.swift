import Foundation
import MockCDNCore
import MockCDNTesting
import Testing

@Suite("Secure media: FAT, settings, media upload, presign")
struct SecureMediaTests {
    static let alphabet = Data("abcdefghijklmnopqrstuvwxyz".utf8)

    /// A second tenant, for tokens that belong elsewhere, with a short presign lifetime.
    static let acme = AppConfiguration(
        appID: "acme",
        apiKey: "acme-key",
        apiSecret: "acme-secret-at-least-32-bytes-long!!",
        region: "eu",
        presignTTL: 60
    )

    /// Mints a FAT through the API with a server token of `app`.
    static func mintFAT(
        _ server: DiskServer,
        user: String = "alice",
        ttl: Int = 3600,
        app: AppConfiguration = .demo
    ) async throws -> String {
        let reply = try await HTTP.send(
            "POST",
            server.url("/v1/apps/\(app.appID)/fat"),
            headers: ["Authorization": "Bearer " + JWT.sign(["server": true], secret: app.apiSecret)],
            body: Data(#"{"user_id":"\#(user)","ttl":\#(ttl)}"#.utf8)
        )
        try #require(reply.status == 200, "\(reply.text)")
        return try #require(reply.json["fat"] as? String)
    }

    /// A FAT whose text holds `+`, `/` and `=`, so that encoding mistakes cannot pass unnoticed.
    static func awkwardFAT(_ server: DiskServer) async throws -> String {
        for _ in 0..<64 {
            let token = try await mintFAT(server)
            if token.contains("+"), token.contains("/"), token.contains("=") { return token }
        }
        Issue.record("no FAT with + / and = in 64 tries")
        return try await mintFAT(server)
    }

    static func encoded(_ token: String) -> String {
        PercentEncoding.encode(token)
    }

    /// Uploads `data` to `/{app}/media` with the FAT in the header.
    static func uploadMedia(
        _ server: DiskServer,
        fat: String?,
        data: Data = alphabet,
        name: String = "abc.txt",
        app: String = "demo"
    ) async throws -> Reply {
        var headers = ["Content-Type": Multipart.contentType]
        if let fat { headers["fat"] = fat }
        return try await HTTP.send(
            "POST",
            server.url("/\(app)/media"),
            headers: headers,
            body: Multipart.body([.file(data, name: name, type: "text/plain")])
        )
    }

    /// A server with one media object; gives the FAT that uploaded it and the object's URL.
    static func withMedia(
        _ body: @Sendable (DiskServer, _ fat: String, _ url: String) async throws -> Void
    )
        async throws
    {
        try await DiskServer.run(apps: [.demo, acme]) { server in
            let fat = try await awkwardFAT(server)
            let upload = try await uploadMedia(server, fat: fat)
            try #require(upload.status == 201, "\(upload.text)")
            let url = try #require(upload.json["url"] as? String)
            try await body(server, fat, url)
        }
    }

    @Test("a FAT is accepted in the header, in the query (encoded or raw) and after CometChat's stray ?")
    func fatAccepted() async throws {
        try await Self.withMedia { server, fat, url in
            #expect(url.hasPrefix(server.server.baseURL.absoluteString + "/demo/media/"))
            #expect(url.hasSuffix("/abc.txt"))
            let reads: [(String, String, [String: String])] = [
                ("header", url, ["fat": fat]),
                ("header, percent-encoded", url, ["fat": Self.encoded(fat)]),
                ("query, percent-encoded", url + "?fat=" + Self.encoded(fat), [:]),
                ("query, raw + / =", url + "?fat=" + fat, [:]),
                ("stray ? after a query", url + "?ro=0?fat=" + Self.encoded(fat), [:]),
                ("stray ? and a later parameter", url + "?a=b?fat=" + Self.encoded(fat) + "&ro=0", [:]),
                ("same token in header and query", url + "?fat=" + Self.encoded(fat), ["fat": fat]),
                ("valid FAT beside a broken CloudFront signature", url + "?Signature=x&Key-Pair-Id=y", ["fat": fat]),
            ]
            for (name, target, headers) in reads {
                let reply = try await HTTP.get(target, headers: headers)
                #expect(reply.status == 200, "\(name): \(reply.text)")
                #expect(reply.body == Self.alphabet, "\(name)")
            }
        }
    }

    @Test("FAT refusals: missing 401, tampered/expired/foreign 403, header and query differing 400")
    func fatRefused() async throws {
        try await Self.withMedia { server, fat, url in
            let acmeFAT = try await Self.mintFAT(server, app: Self.acme)
            let otherFAT = try await Self.mintFAT(server, user: "bob")
            var mac = Array(fat)
            mac[mac.count - 3] = mac[mac.count - 3] == "A" ? "B" : "A"
            let tampered = String(mac)
            let stored = try server.storedCount()
            let cases: [(String, String, [String: String], Int, String, String)] = [
                ("no credential", url, [:], 401, "AccessDenied", "No credential"),
                ("empty fat header", url, ["fat": ""], 401, "AccessDenied", "No credential"),
                ("empty fat query", url + "?fat=", [:], 401, "AccessDenied", "No credential"),
                (
                    "tampered header", url, ["fat": tampered], 403, "AccessDenied",
                    "File Access Token signature does not match"
                ),
                (
                    "tampered query", url + "?fat=" + Self.encoded(tampered), [:], 403, "AccessDenied",
                    "File Access Token signature does not match"
                ),
                (
                    "another app's token", url, ["fat": acmeFAT], 403, "AccessDenied",
                    "File Access Token belongs to another app"
                ),
                ("garbage", url + "?fat=abc", [:], 403, "AccessDenied", "Malformed File Access Token"),
                (
                    "header and query differ", url + "?fat=" + Self.encoded(otherFAT), ["fat": fat], 400,
                    "InvalidArgument", "The fat header and the fat query parameter carry different tokens"
                ),
                (
                    "repeated query differs", url + "?fat=" + Self.encoded(otherFAT) + "&fat=" + Self.encoded(fat),
                    [:], 400, "InvalidArgument", "The fat query parameter is repeated with different tokens"
                ),
            ]
            for (name, target, headers, status, code, message) in cases {
                let reply = try await HTTP.get(target, headers: headers)
                #expect(reply.status == status, "\(name): \(reply.text)")
                #expect(reply.header("content-type") == "application/xml", "\(name)")
                #expect(reply.xmlError?.code == code, "\(name)")
                #expect(reply.xmlError?.message.hasPrefix(message) == true, "\(name): \(reply.text)")
                #expect(!reply.text.contains(fat) && !reply.text.contains(tampered), "\(name) echoes a token")
            }
            // Minted just before the clock moves, with 10 s of slack for a loaded machine.
            let shortFAT = try await Self.mintFAT(server, ttl: 60)
            try await server.advanceClock(50)
            #expect(try await HTTP.get(url, headers: ["fat": shortFAT]).status == 200)
            try await server.advanceClock(10)
            let expired = try await HTTP.get(url, headers: ["fat": shortFAT])
            #expect(expired.status == 403)
            #expect(expired.xmlError?.message == "File Access Token has expired")
            // Nothing was stored or lost by the refusals.
            #expect(try server.storedCount() == stored)
            #expect(try await HTTP.get(url, headers: ["fat": fat]).body == Self.alphabet)
        }
    }

    @Test("settings name the secured media host and the FAT parameter")
    func settings() async throws {
        try await DiskServer.run(apps: [.demo, Self.acme]) { server in
            let reply = try await HTTP.get(server.url("/v1/apps/demo/settings"))
            #expect(reply.status == 200)
            let host = try #require(URLComponents(string: server.server.baseURL.absoluteString))
            #expect(reply.json["SECURED_MEDIA_HOST"] as? String == "\(host.host!):\(host.port!)")
            #expect(reply.json["FAT_PARAMETER_NAME"] as? String == "fat")
            #expect(reply.json["FAT_HEADER_NAME"] as? String == "fat")
            #expect(reply.json["PRESIGNED_URL_TTL"] as? Int == 300)
            let acme = try await HTTP.get(server.url("/v1/apps/acme/settings"))
            #expect(acme.json["PRESIGNED_URL_TTL"] as? Int == 60)
            let missing = try await HTTP.get(server.url("/v1/apps/nope/settings"))
            #expect(missing.status == 404)
            #expect((missing.json["error"] as? [String: Any])?["code"] as? String == "ERR_APP_NOT_FOUND")
        }
    }

    @Test("minting a FAT: server token for anyone, user token for itself, everything else refused")
    func mint() async throws {
        try await DiskServer.run { server in
            func mint(_ token: String?, body: String, query: String = "") async throws -> Reply {
                try await HTTP.send(
                    "POST",
                    server.url("/v1/apps/demo/fat" + query),
                    headers: token.map { ["Authorization": $0] } ?? [:],
                    body: Data(body.utf8)
                )
            }
            // The server stamps the FAT between the two clock reads around the request, however long it takes.
            let (ok, window) = try await server.bracketed {
                try await mint(Tokens.server, body: #"{"user_id":"alice","ttl":120}"#)
            }
            #expect(ok.status == 200)
            #expect(ok.json["user_id"] as? String == "alice")
            #expect(ok.json["expires_in"] as? Int == 120)
            #expect(window.contains(Int64(ok.json["expires_at"] as? Int ?? 0) - 120))
            let own = try await mint("Bearer " + Tokens.user("bob"), body: "{}")
            #expect(own.status == 200)
            #expect(own.json["user_id"] as? String == "bob")
            #expect(own.json["expires_in"] as? Int == 3600)

            let cases: [(String, String?, String, String, Int, String)] = [
                ("no token", nil, #"{"user_id":"a"}"#, "", 401, "ERR_UNAUTHORIZED"),
                ("bad token", "Bearer x.y.z", #"{"user_id":"a"}"#, "", 401, "ERR_UNAUTHORIZED"),
                (
                    "other app's secret", JWT.sign(["server": true], secret: Self.acme.apiSecret), #"{"user_id":"a"}"#,
                    "", 401, "ERR_UNAUTHORIZED"
                ),
                (
                    "expired token", Tokens.user("bob", extra: ["exp": Int(window.lowerBound) - 10]), "{}", "", 401,
                    "ERR_UNAUTHORIZED"
                ),
                ("wrong api_key", Tokens.server, #"{"user_id":"a"}"#, "?api_key=acme-key", 401, "ERR_UNAUTHORIZED"),
                (
                    "user token for another user", Tokens.user("bob"), #"{"user_id":"alice"}"#, "", 403,
                    "ERR_NOT_ALLOWED"
                ),
                ("server token without user_id", Tokens.server, "{}", "", 400, "ERR_BAD_REQUEST"),
                ("zero ttl", Tokens.server, #"{"user_id":"a","ttl":0}"#, "", 400, "ERR_BAD_REQUEST"),
                ("ttl over 30 days", Tokens.server, #"{"user_id":"a","ttl":2592001}"#, "", 400, "ERR_BAD_REQUEST"),
                ("not JSON", Tokens.server, "user_id=a", "", 400, "ERR_BAD_REQUEST"),
            ]
            for (name, token, body, query, status, code) in cases {
                let reply = try await mint(token, body: body, query: query)
                #expect(reply.status == status, "\(name): \(reply.text)")
                let error = reply.json["error"] as? [String: Any]
                #expect(error?["code"] as? String == code, "\(name)")
                #expect((error?["message"] as? String)?.isEmpty == false, "\(name)")
                #expect(reply.json["fat"] == nil, "\(name)")
            }
        }
    }

    @Test("media upload: 201 with the media URL; without a valid FAT or within policy nothing is stored")
    func mediaUpload() async throws {
        try await DiskServer.run(apps: [.demo, Self.acme]) { server in
            let fat = try await Self.mintFAT(server)
            let acmeFAT = try await Self.mintFAT(server, app: Self.acme)
            let limit = try await HTTP.send(
                "PATCH",
                server.url("/app?api_key=demo-key"),
                headers: Tokens.headers(Tokens.server),
                body: Data(#"{"file_upload_config":{"size_limit":20}}"#.utf8)
            )
            try #require(limit.status == 201)
            let cases: [(String, String?, Data, String, Int, String)] = [
                ("no FAT", nil, Data("x".utf8), "demo", 401, "ERR_NOT_LOGGED_IN"),
                ("another app's FAT", acmeFAT, Data("x".utf8), "demo", 401, "ERR_NOT_LOGGED_IN"),
                ("empty file", fat, Data(), "demo", 400, "ERR_BAD_REQUEST"),
                ("over the app's size limit", fat, Self.alphabet, "demo", 413, "ERR_FILE_SIZE_EXCEEDED"),
                ("unknown app", fat, Data("x".utf8), "nope", 404, "ERR_APP_NOT_FOUND"),
            ]
            for (name, token, data, app, status, code) in cases {
                let reply = try await Self.uploadMedia(server, fat: token, data: data, app: app)
                #expect(reply.status == status, "\(name): \(reply.text)")
                #expect((reply.json["error"] as? [String: Any])?["code"] as? String == code, "\(name)")
                #expect(try server.storedCount() == 0, "\(name)")
                #expect(try server.temporaryCount() == 0, "\(name)")
            }
            let query = try await HTTP.send(
                "POST",
                server.url("/demo/media?fat=" + Self.encoded(fat)),
                headers: ["Content-Type": Multipart.contentType],
                body: Multipart.body([.file(Data("small".utf8), name: "s.txt", type: "text/plain")])
            )
            #expect(query.status == 201, "\(query.text)")
            #expect(try server.storedCount() == 1)
        }
    }

    @Test("presign: a SigV4 URL that reads the object and expires after 300 s of clock time")
    func presign() async throws {
        try await Self.withMedia { server, fat, url in
            func presign(_ body: String, fat: String?) async throws -> Reply {
                try await HTTP.send(
                    "POST",
                    server.url("/v1/apps/demo/presign"),
                    headers: fat.map { ["fat": $0] } ?? [:],
                    body: Data(body.utf8)
                )
            }
            let (reply, window) = try await server.bracketed {
                try await presign(#"{"url":"\#(url)?fat=old"}"#, fat: fat)
            }
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json["expires_in"] as? Int == 300)
            #expect(window.contains(Int64(reply.json["expires_at"] as? Int ?? 0) - 300))
            let presigned = try #require(reply.json["url"] as? String)
            #expect(presigned.hasPrefix(url + "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=demo-key%2F"))
            #expect(presigned.contains("%2Fus-east-1%2Fs3%2Faws4_request&"))
            #expect(presigned.contains("&X-Amz-Expires=300&X-Amz-SignedHeaders=host&X-Amz-Signature="))
            #expect(try await HTTP.get(presigned).body == Self.alphabet)
            // A FAT and `ro` may be appended, as to any MockCDN link (transforms: see the image case below).
            #expect(try await HTTP.get(presigned + "&ro=0&fat=" + Self.encoded(fat)).status == 200)

            var changed = Array(presigned)
            changed[changed.count - 1] = changed.last == "0" ? "1" : "0"
            let tampered = try await HTTP.get(String(changed))
            #expect(tampered.status == 403)
            #expect(tampered.xmlError?.code == "SignatureDoesNotMatch")

            try await server.advanceClock(290)
            #expect(try await HTTP.get(presigned).status == 200)
            try await server.advanceClock(11)
            let expired = try await HTTP.get(presigned)
            #expect(expired.status == 403)
            #expect(expired.xmlError?.code == "AccessDenied")
            #expect(expired.xmlError?.message == "Request has expired")
            #expect(expired.text.contains("<X-Amz-Expires>300</X-Amz-Expires><Expires>"))
            #expect(expired.text.contains("</Expires><ServerTime>"))
        }
    }

    @Test("presign refusals in CometChat's envelope; any object of the app can be presigned")
    func presignRefused() async throws {
        try await Self.withMedia { server, fat, url in
            let streamUpload = try await server.upload(parts: [.file(Media.png, name: "p.png", type: "image/png")])
            let image = String(try #require(streamUpload.json["file"] as? String).prefix { $0 != "?" })
            let acmeFAT = try await Self.mintFAT(server, app: Self.acme)
            let base = server.server.baseURL.absoluteString
            let cases: [(String, String?, String, Int, String)] = [
                ("no FAT", nil, #"{"url":"\#(url)"}"#, 401, "ERR_NOT_LOGGED_IN"),
                ("invalid FAT", "abc", #"{"url":"\#(url)"}"#, 401, "ERR_NOT_LOGGED_IN"),
                ("another app's FAT", acmeFAT, #"{"url":"\#(url)"}"#, 401, "ERR_NOT_LOGGED_IN"),
                ("no url", fat, "{}", 400, "ERR_INVALID_URL"),
                ("relative url", fat, #"{"url":"/demo/media/x/y.txt"}"#, 400, "ERR_INVALID_URL"),
                ("another app's url", fat, #"{"url":"\#(base)/acme/media/x/y.txt"}"#, 400, "ERR_INVALID_URL"),
                ("another host", fat, #"{"url":"http://example.com/demo/media/x/y.txt"}"#, 400, "ERR_INVALID_URL"),
                ("traversal", fat, #"{"url":"\#(base)/demo/%2e%2e/acme/x"}"#, 400, "ERR_INVALID_URL"),
                ("unknown object", fat, #"{"url":"\#(base)/demo/media/x/y.txt"}"#, 404, "ERR_RESOURCE_NOT_FOUND"),
                ("not JSON", fat, "url=x", 400, "ERR_BAD_REQUEST"),
            ]
            for (name, token, body, status, code) in cases {
                let reply = try await HTTP.send(
                    "POST",
                    server.url("/v1/apps/demo/presign"),
                    headers: token.map { ["fat": $0] } ?? [:],
                    body: Data(body.utf8)
                )
                #expect(reply.status == status, "\(name): \(reply.text)")
                #expect((reply.json["error"] as? [String: Any])?["code"] as? String == code, "\(name)")
                #expect(reply.json["url"] == nil, "\(name)")
            }
            let imageReply = try await HTTP.send(
                "POST",
                server.url("/v1/apps/demo/presign?fat=" + Self.encoded(fat)),
                body: Data(#"{"url":"\#(image)"}"#.utf8)
            )
            #expect(imageReply.status == 200, "\(imageReply.text)")
            let presigned = try #require(imageReply.json["url"] as? String)
            #expect(try await HTTP.get(presigned).body == Media.png)
            // Stream-style transform parameters appended to a presigned link keep it valid.
            let resized = try await HTTP.get(presigned + "&w=16&h=*&resize=clip&ro=0")
            #expect(resized.status == 200)
            #expect(resized.image?.width == 16)
        }
    }
}
