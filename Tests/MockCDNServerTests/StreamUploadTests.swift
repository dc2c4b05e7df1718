import Foundation
import MockCDNCore
import Testing

@Suite("Stream uploads")
struct StreamUploadTests {
    @Test(
        "image upload on every path family answers 201 with a working signed link",
        arguments: [
            "/channels/messaging/general/image", "/api/v2/chat/channels/messaging/general/image",
            "/api/v2/uploads/image",
        ]
    )
    func imageUpload(path: String) async throws {
        try await DiskServer.run { server in
            let sizes = #"[{"width":100,"height":100,"resize":"crop","crop":"top"}]"#
            let (reply, window) = try await server.bracketed {
                try await server.upload(
                    path,
                    parts: [.file(Media.png, type: "image/png"), .field("upload_sizes", sizes)]
                )
            }
            #expect(reply.status == 201)
            let file = try #require(reply.json["file"] as? String)
            let thumb = try #require(reply.json["thumb_url"] as? String)
            // Stream's shape: Key-Pair-Id, Policy, Signature, then the original height and width.
            #expect(file.contains("/demo/images/") && file.contains("?Key-Pair-Id=K2JCJMDEHXQW5F&Policy="))
            #expect(
                file.contains("&Signature=") && file.hasSuffix("&oh=\(Media.pngSize.height)&ow=\(Media.pngSize.width)")
            )
            #expect(
                try Links.policy(of: file).resource.hasSuffix("?*oh=\(Media.pngSize.height)*ow=\(Media.pngSize.width)*")
            )
            #expect(thumb.hasPrefix(file))
            #expect((reply.json["upload_sizes"] as? [[String: Any]])?.first?["crop"] as? String == "top")
            #expect((reply.json["duration"] as? String)?.hasSuffix("ms") == true)
            #expect(!reply.text.contains(#"\/"#), "links are written with plain slashes, as Stream does")
            #expect(try server.storedCount() == 1)

            let read = try await HTTP.get(file)
            #expect(read.status == 200)
            #expect(read.body == Media.png)
            #expect(read.header("Content-Type") == "image/png")
            // The link expires 14 days from the clock's now when it was signed.
            #expect(window.contains(try Links.expiry(of: file) - 14 * 24 * 3600))
        }
    }

    @Test("file upload: no thumbnail, any type, declared type kept, name sanitised")
    func fileUpload() async throws {
        try await DiskServer.run { server in
            let reply = try await server.upload(
                "/channels/messaging/general/file",
                parts: [.file(Media.text, name: "../../etc/my report (final).txt", type: "text/plain")]
            )
            #expect(reply.status == 201)
            #expect(reply.json["thumb_url"] == nil)
            let file = try #require(reply.json["file"] as? String)
            #expect(file.contains("/demo/attachments/"))
            #expect(file.contains("/my_report__final_.txt?"))
            let read = try await HTTP.get(file)
            #expect(read.body == Media.text)
            #expect(read.header("Content-Type") == "text/plain")
            // A `;` inside the quoted filename belongs to the name, not to the header's parameter list.
            let semicolon = try await server.upload(
                "/channels/messaging/general/file",
                parts: [.file(Media.text, name: "semi;colon.txt", type: "text/plain")]
            )
            #expect((semicolon.json["file"] as? String)?.contains("/semi_colon.txt?") == true, "\(semicolon.text)")
        }
    }

    @Test("a server token names the user in the user part; without it the upload has no owner")
    func serverToken() async throws {
        try await DiskServer.run { server in
            let withUser = try await server.upload(
                token: Tokens.server,
                parts: [.file(Media.png), .field("user", #"{"id":"bob"}"#)]
            )
            #expect(withUser.status == 201)
            let listing = try await HTTP.get(
                server.url("/channels/messaging/general/uploads?api_key=demo-key"),
                headers: Tokens.headers(Tokens.server)
            )
            #expect((listing.json["uploads"] as? [[String: Any]])?.first?["user_id"] as? String == "bob")

            // Without it (Stream's server SDKs send none by default) the upload has no owner: only a server
            // token may delete it.
            let without = try await server.upload(token: Tokens.server, parts: [.file(Media.png)])
            #expect(without.status == 201)
            let link = try #require(without.json["file"] as? String)
            let path =
                "/channels/messaging/general/image?api_key=demo-key&url="
                + PercentEncoding.encode(link)
            let byUser = try await HTTP.send("DELETE", server.url(path), headers: Tokens.headers(Tokens.user("bob")))
            #expect(byUser.status == 403)
            #expect(byUser.streamCode == 17)
            #expect(
                try await HTTP.send("DELETE", server.url(path), headers: Tokens.headers(Tokens.server)).status == 200
            )
            #expect(try server.storedCount() == 1)
            #expect(try server.temporaryCount() == 0)
        }
    }

    struct AuthCase: Sendable, CustomTestStringConvertible {
        let name: String
        let token: String?
        let apiKey: String?
        var headers: [String: String] = [:]
        let status: Int
        let code: Int
        var testDescription: String { self.name }
    }

    static let authCases: [AuthCase] = [
        AuthCase(name: "no api_key", token: Tokens.user("alice"), apiKey: nil, status: 401, code: 5),
        AuthCase(name: "unknown api_key", token: Tokens.user("alice"), apiKey: "nope", status: 401, code: 5),
        AuthCase(name: "no Authorization", token: nil, apiKey: "demo-key", status: 401, code: 5),
        AuthCase(
            name: "wrong secret",
            token: JWT.sign(["user_id": "alice"], secret: "another-secret-entirely-32-bytes!!"),
            apiKey: "demo-key",
            status: 401,
            code: 5
        ),
        AuthCase(
            name: "alg none",
            token: Base64.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8), .url) + "."
                + Base64.encode(Array(#"{"user_id":"alice"}"#.utf8), .url) + ".",
            apiKey: "demo-key",
            status: 401,
            code: 5
        ),
        AuthCase(name: "garbage token", token: "not.a.jwt", apiKey: "demo-key", status: 401, code: 5),
        AuthCase(
            name: "expired",
            token: Tokens.user("alice", extra: ["exp": 1_000_000]),
            apiKey: "demo-key",
            status: 401,
            code: 40
        ),
        AuthCase(
            name: "issued in the future",
            token: Tokens.user("alice", extra: ["iat": 4_000_000_000]),
            apiKey: "demo-key",
            status: 401,
            code: 5
        ),
        AuthCase(
            name: "server:false and no user",
            token: JWT.sign(["server": false, "role": "admin"], secret: Tokens.secret),
            apiKey: "demo-key",
            status: 401,
            code: 5
        ),
        AuthCase(
            name: "auth type not jwt",
            token: Tokens.user("alice"),
            apiKey: "demo-key",
            headers: ["stream-auth-type": "anonymous"],
            status: 401,
            code: 5
        ),
    ]

    @Test("auth failures answer Stream's envelope and store nothing", arguments: authCases)
    func authFailures(authCase: AuthCase) async throws {
        try await DiskServer.run { server in
            let reply = try await server.upload(
                token: authCase.token,
                apiKey: authCase.apiKey,
                parts: [.file(Media.png)],
                headers: authCase.headers
            )
            #expect(reply.status == authCase.status)
            #expect(reply.streamCode == authCase.code)
            #expect(reply.json["StatusCode"] as? Int == authCase.status)
            #expect(!(reply.json["message"] as? String ?? "").isEmpty)
            #expect(try server.storedCount() == 0)
        }
    }

    struct PolicyCase: Sendable, CustomTestStringConvertible {
        let name: String
        let part: Part
        let status: Int
        let storedType: String?
        var testDescription: String { self.name }
    }

    static let policyCases: [PolicyCase] = [
        PolicyCase(
            name: "PNG declared as PNG",
            part: .file(Media.png, type: "image/png"),
            status: 201,
            storedType: "image/png"
        ),
        PolicyCase(
            name: "PNG declared as octet-stream",
            part: .file(Media.png, type: "application/octet-stream"),
            status: 201,
            storedType: "image/png"
        ),
        PolicyCase(name: "PNG with no declared type", part: .file(Media.png), status: 201, storedType: "image/png"),
        PolicyCase(
            name: "JPEG declared image/jpg",
            part: .file(Media.jpeg, name: "a.jpg", type: "image/jpg"),
            status: 201,
            storedType: "image/jpeg"
        ),
        PolicyCase(
            name: "PNG declared as JPEG",
            part: .file(Media.png, type: "image/jpeg"),
            status: 400,
            storedType: nil
        ),
        PolicyCase(
            name: "text to the image endpoint",
            part: .file(Media.text, name: "a.png", type: "image/png"),
            status: 400,
            storedType: nil
        ),
        PolicyCase(
            name: "text, undeclared, to the image endpoint",
            part: .file(Media.text),
            status: 400,
            storedType: nil
        ),
        PolicyCase(name: "empty file", part: .file(Data()), status: 400, storedType: nil),
    ]

    @Test("image MIME policy: the bytes decide, a specific declared type must agree", arguments: policyCases)
    func imagePolicy(policyCase: PolicyCase) async throws {
        try await DiskServer.run { server in
            let reply = try await server.upload(parts: [policyCase.part])
            #expect(reply.status == policyCase.status)
            if let storedType = policyCase.storedType {
                let read = try await HTTP.get(try #require(reply.json["file"] as? String))
                #expect(read.header("Content-Type") == storedType)
                #expect(try server.storedCount() == 1)
            } else {
                #expect(reply.streamCode == 4)
                #expect(try server.storedCount() == 0)
                #expect(try server.temporaryCount() == 0)
            }
        }
    }

    @Test("malformed multipart bodies are 400 and store nothing")
    func malformedMultipart() async throws {
        try await DiskServer.run { server in
            let headers = Tokens.headers(Tokens.user("alice"))
            let url = server.url("/channels/messaging/general/file?api_key=demo-key")
            let full = Multipart.body([.file(Data(repeating: 7, count: 200_000), name: "a.bin")])
            let cases: [(String, String, Data)] = [
                ("no boundary", "multipart/form-data", full),
                ("not multipart", "application/json", Data("{}".utf8)),
                ("truncated inside the file part", Multipart.contentType, full.prefix(100_000)),
                ("no file part", Multipart.contentType, Multipart.body([.field("user", #"{"id":"x"}"#)])),
                (
                    "two file parts", Multipart.contentType,
                    Multipart.body([.file(Media.text, name: "a.txt"), .file(Media.text, name: "b.txt")])
                ),
                (
                    "huge part headers", Multipart.contentType,
                    Multipart.body([
                        Part(name: "file", fileName: String(repeating: "n", count: 40_000), data: Media.text)
                    ])
                ),
                (
                    "user part not JSON", Multipart.contentType,
                    Multipart.body([.file(Media.text, name: "a.txt"), .field("user", "{nope")])
                ),
            ]
            for (name, contentType, body) in cases {
                let reply = try await HTTP.send(
                    "POST",
                    url,
                    headers: headers.merging(["Content-Type": contentType]) { $1 },
                    body: body
                )
                #expect(reply.status == 400, "\(name)")
                #expect(reply.streamCode == 4, "\(name)")
            }
            #expect(try server.storedCount() == 0)
            #expect(try server.temporaryCount() == 0)
        }
    }

    @Test("size limit: 413 from Content-Length before the body, and mid-stream for a chunked body")
    func sizeLimit() async throws {
        try await DiskServer.run { server in
            let patch = try await HTTP.send(
                "PATCH",
                server.url("/app?api_key=demo-key"),
                headers: Tokens.headers(Tokens.server),
                body: Data(#"{"file_upload_config":{"size_limit":1000}}"#.utf8)
            )
            #expect(patch.status == 201)
            let url = server.url("/channels/messaging/general/file?api_key=demo-key")
            var headers = Tokens.headers(Tokens.user("alice"))
            headers["Content-Type"] = Multipart.contentType

            // Content-Length far past the limit: refused from the header.
            let big = Multipart.body([.file(Data(repeating: 1, count: 200_000), name: "big.bin")])
            let byHeader = try await HTTP.send("POST", url, headers: headers, body: big)
            #expect(byHeader.status == 413)
            #expect(byHeader.streamCode == 22)

            // Within the multipart allowance, so only counting the streamed file part finds it too large.
            let slightly = Multipart.body([.file(Data(repeating: 1, count: 1001), name: "slightly.bin")])
            let midStream = try await HTTP.send("POST", url, headers: headers, body: slightly)
            #expect(midStream.status == 413)
            #expect(midStream.streamCode == 22)

            // No Content-Length at all (chunked): counted as it streams.
            let chunked = try await HTTP.send("POST", url, headers: headers, bodyStream: InputStream(data: big))
            #expect(chunked.status == 413)

            // Many parts Stream does not define: not kept, and the whole body is still bounded.
            let junk = (0..<40).map { Part.field("junk\($0)", String(repeating: "j", count: 4000)) }
            let padded = try await HTTP.send(
                "POST",
                url,
                headers: headers,
                bodyStream: InputStream(
                    data: Multipart.body(junk + [.file(Data(repeating: 1, count: 10), name: "p.bin")])
                )
            )
            #expect(padded.status == 413)
            #expect(padded.streamCode == 22)

            let exactly = Multipart.body([.file(Data(repeating: 1, count: 1000), name: "exact.bin")])
            #expect(try await HTTP.send("POST", url, headers: headers, body: exactly).status == 201)
            #expect(try server.storedCount() == 1)
            #expect(try server.temporaryCount() == 0)
        }
    }

    @Test("app settings: GET and PATCH need a server token and take effect on the next request")
    func appSettings() async throws {
        try await DiskServer.run { server in
            let url = server.url("/app?api_key=demo-key")
            let denied = try await HTTP.send(
                "PATCH",
                url,
                headers: Tokens.headers(Tokens.user("alice")),
                body: Data("{}".utf8)
            )
            #expect(denied.status == 403)
            #expect(denied.streamCode == 17)
            let malformed = try await HTTP.send(
                "PATCH",
                url,
                headers: Tokens.headers(Tokens.server),
                body: Data("{nope".utf8)
            )
            #expect(malformed.status == 400)
            #expect(malformed.streamCode == 4)

            let update =
                #"{"file_upload_config":{"allowed_file_extensions":[],"blocked_file_extensions":[".exe"],"allowed_mime_types":[],"blocked_mime_types":["application/zip"],"size_limit":0},"image_upload_config":{"allowed_file_extensions":[],"blocked_file_extensions":[],"allowed_mime_types":["image/jpeg"],"blocked_mime_types":[],"size_limit":0}}"#
            #expect(
                try await HTTP.send("PATCH", url, headers: Tokens.headers(Tokens.server), body: Data(update.utf8))
                    .status == 201
            )
            let settings = try await HTTP.get(url, headers: Tokens.headers(Tokens.server))
            #expect(settings.status == 200)
            let app = try #require(settings.json["app"] as? [String: Any])
            #expect((app["file_upload_config"] as? [String: Any])?["blocked_file_extensions"] as? [String] == [".exe"])

            let exe = try await server.upload(
                "/channels/messaging/general/file",
                parts: [.file(Media.text, name: "setup.EXE")]
            )
            #expect(exe.status == 400)
            #expect((exe.json["message"] as? String)?.contains(".exe") == true)
            let zip = try await server.upload(
                "/channels/messaging/general/file",
                parts: [.file(Data("PK\u{03}\u{04}rest".utf8), name: "a.zip")]
            )
            #expect(zip.status == 400)
            let png = try await server.upload(parts: [.file(Media.png)])
            #expect(png.status == 400, "only image/jpeg is allowed now")
            let jpeg = try await server.upload(parts: [.file(Media.jpeg, name: "ok.jpg")])
            #expect(jpeg.status == 201)
            #expect(try server.storedCount() == 1)
        }
    }

    @Test("delete: the object is gone for every credential; errors are clean Stream errors")
    func delete() async throws {
        try await DiskServer.run { server in
            let upload = try await server.upload(parts: [.file(Media.png)])
            let file = try #require(upload.json["file"] as? String)
            let encoded = file.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let path = "/channels/messaging/general/image?api_key=demo-key&url="

            let stranger = try await HTTP.send(
                "DELETE",
                server.url(path + encoded),
                headers: Tokens.headers(Tokens.user("mallory"))
            )
            #expect(stranger.status == 403)
            #expect(stranger.streamCode == 17)
            let missingURL = try await HTTP.send(
                "DELETE",
                server.url("/channels/messaging/general/image?api_key=demo-key"),
                headers: Tokens.headers(Tokens.user("alice"))
            )
            #expect(missingURL.status == 400)
            let foreign = try await HTTP.send(
                "DELETE",
                server.url(path + "http%3A%2F%2Fexample.com%2Fother%2Fimages%2Fx.png"),
                headers: Tokens.headers(Tokens.user("alice"))
            )
            #expect(foreign.status == 400)
            #expect(try server.storedCount() == 1)

            let deleted = try await HTTP.send(
                "DELETE",
                server.url(path + encoded),
                headers: Tokens.headers(Tokens.user("alice"))
            )
            #expect(deleted.status == 200)
            #expect(deleted.json["duration"] != nil)
            #expect(try server.storedCount() == 0)
            let read = try await HTTP.get(file)
            #expect(read.status == 404)
            #expect(read.xmlError?.code == "NoSuchKey")

            let again = try await HTTP.send(
                "DELETE",
                server.url(path + encoded),
                headers: Tokens.headers(Tokens.user("alice"))
            )
            #expect(again.status == 404)
            #expect(again.streamCode == 16)
        }
    }

    @Test("v2 delete takes the URL in a JSON body")
    func deleteV2Body() async throws {
        try await DiskServer.run { server in
            let upload = try await server.upload("/api/v2/uploads/file", parts: [.file(Media.text, name: "a.txt")])
            let file = try #require(upload.json["file"] as? String)
            let body = try JSONSerialization.data(withJSONObject: ["url": file])
            let reply = try await HTTP.send(
                "DELETE",
                server.url("/api/v2/uploads/file?api_key=demo-key"),
                headers: Tokens.headers(Tokens.server),
                body: body
            )
            #expect(reply.status == 200)
            #expect(try server.storedCount() == 0)
        }
    }

    @Test("channel access: uploader is a member, others are refused until added; listings are oldest first")
    func channelAccess() async throws {
        try await DiskServer.run { server in
            let first = try await server.upload(
                "/channels/messaging/team/file",
                parts: [.file(Data("one".utf8), name: "1.txt")]
            )
            let second = try await server.upload(
                "/channels/messaging/team/file",
                token: Tokens.user("bob"),
                parts: [.file(Data("two".utf8), name: "2.txt")]
            )
            #expect(first.status == 201 && second.status == 201)
            _ = try await server.upload(
                "/channels/messaging/elsewhere/file",
                parts: [.file(Data("x".utf8), name: "x.txt")]
            )
            let uploads = server.url("/channels/messaging/team/uploads?api_key=demo-key")

            let asAlice = try await HTTP.get(uploads, headers: Tokens.headers(Tokens.user("alice")))
            #expect(asAlice.status == 200)
            let listed = try #require(asAlice.json["uploads"] as? [[String: Any]])
            #expect(listed.map { $0["name"] as? String } == ["1.txt", "2.txt"])
            #expect(listed.map { $0["user_id"] as? String } == ["alice", "bob"])
            #expect(listed.first?["mime_type"] as? String == "text/plain")
            #expect(listed.first?["size"] as? Int == 3)

            let outsider = try await HTTP.get(uploads, headers: Tokens.headers(Tokens.user("carol")))
            #expect(outsider.status == 403)
            #expect(outsider.streamCode == 17)
            let byUser = try await HTTP.send(
                "POST",
                server.url("/channels/messaging/team/members?api_key=demo-key"),
                headers: Tokens.headers(Tokens.user("alice")),
                body: Data(#"{"user_ids":["carol"]}"#.utf8)
            )
            #expect(byUser.status == 403)
            let added = try await HTTP.send(
                "POST",
                server.url("/channels/messaging/team/members?api_key=demo-key"),
                headers: Tokens.headers(Tokens.server),
                body: Data(#"{"user_ids":["carol"]}"#.utf8)
            )
            #expect(added.status == 201)
            #expect(try await HTTP.get(uploads, headers: Tokens.headers(Tokens.user("carol"))).status == 200)
        }
    }

    @Test("after 14 days an upload's link is 403, and the channel listing hands out a fresh one that works")
    func freshLinksAfterExpiry() async throws {
        try await DiskServer.run { server in
            let upload = try await server.upload(
                "/channels/messaging/general/file",
                parts: [.file(Media.text, name: "a.txt")]
            )
            let old = try #require(upload.json["file"] as? String)
            #expect(try await HTTP.get(old).status == 200)

            try await server.advanceClock(14 * 24 * 3600 + 1)
            let expired = try await HTTP.get(old)
            #expect(expired.status == 403)
            #expect(expired.xmlError?.message == "Request has expired")

            let listing = try await HTTP.get(
                server.url("/channels/messaging/general/uploads?api_key=demo-key"),
                headers: Tokens.headers(Tokens.server)
            )
            let fresh = try #require((listing.json["uploads"] as? [[String: Any]])?.first?["file"] as? String)
            #expect(fresh != old)
            let read = try await HTTP.get(fresh)
            #expect(read.status == 200)
            #expect(read.body == Media.text)
        }
    }
}
