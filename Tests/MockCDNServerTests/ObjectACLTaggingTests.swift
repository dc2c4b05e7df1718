import Foundation
import HTTPTypes
import MockCDNCore
import NIOCore
import Testing

@testable import MockCDNServer

/// Documents and values the tests' arguments name (outside the suite, which its macros expand in).
private enum Vectors {
    static let policyDocument = """
        <AccessControlPolicy xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Owner><ID>OWNER</ID></Owner>\
        <AccessControlList><Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
        xsi:type="CanonicalUser"><ID>OWNER</ID></Grantee><Permission>FULL_CONTROL</Permission></Grant>\
        <Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="Group">\
        <URI>http://acs.amazonaws.com/groups/global/AllUsers</URI></Grantee><Permission>READ</Permission></Grant>\
        </AccessControlList></AccessControlPolicy>
        """
    static let long = (key: String(repeating: "k", count: 128), value: String(repeating: "v", count: 256))
}

/// Object ACLs and tags: the headers, documents and limits as S3 reads them, what the object keeps, and,
/// against a real server, that each refusal changes nothing.
@Suite("S3 object ACLs and tagging")
struct ObjectACLTaggingTests {
    // MARK: - ACLs

    @Test(
        "each canned ACL expands to S3's documented grants, the app owning bucket and object",
        arguments: [
            ("private", ["FULL_CONTROL id=demo"]),
            ("public-read", ["FULL_CONTROL id=demo", "READ AllUsers"]),
            ("public-read-write", ["FULL_CONTROL id=demo", "READ AllUsers", "WRITE AllUsers"]),
            ("authenticated-read", ["FULL_CONTROL id=demo", "READ AuthenticatedUsers"]),
            ("aws-exec-read", ["FULL_CONTROL id=demo"]),
            ("bucket-owner-read", ["FULL_CONTROL id=demo"]),
            ("bucket-owner-full-control", ["FULL_CONTROL id=demo"]),
        ]
    )
    func cannedExpansion(name: String, expected: [String]) throws {
        let acl = try #require(try ObjectACL.requested([HTTPField.Name("x-amz-acl")!: name]))
        #expect(acl.grants(owner: "demo").map(Self.describe) == expected)
        #expect(acl.allowsPublicRead == (name == "public-read" || name == "public-read-write"))
        // Kept as its name, and read back as it was.
        #expect(acl.extraValue == name)
        #expect(ObjectACL(extraValue: acl.extraValue) == acl)
    }

    @Test("grant headers: ids and group URIs, quoted or not, several per header")
    func grantHeaders() throws {
        let headers: HTTPFields = [
            HTTPField.Name("x-amz-grant-read")!:
                #"uri="http://acs.amazonaws.com/groups/global/AllUsers", id=abc123"#,
            HTTPField.Name("x-amz-grant-full-control")!: #"id="demo""#,
        ]
        let acl = try #require(try ObjectACL.requested(headers))
        #expect(
            acl.grants(owner: "demo").map(Self.describe) == ["FULL_CONTROL id=demo", "READ AllUsers", "READ id=abc123"]
        )
        #expect(acl.allowsPublicRead)
        #expect(ObjectACL(extraValue: acl.extraValue) == acl)
        #expect(try ObjectACL.requested([:]) == nil)
    }

    @Test(
        "ACL headers S3 refuses, with S3's status and code",
        arguments: [
            (["x-amz-acl": "public"], "400 InvalidArgument"),
            (["x-amz-acl": "PUBLIC-READ"], "400 InvalidArgument"),
            (["x-amz-acl": "public-read", "x-amz-grant-read": "id=abc"], "400 InvalidRequest"),
            (["x-amz-grant-read": "emailAddress=\"a@example.com\""], "400 UnresolvableGrantByEmailAddress"),
            (["x-amz-grant-read": "uri=\"http://acs.amazonaws.com/groups/global/Everyone\""], "400 InvalidArgument"),
            (["x-amz-grant-read": "user=abc"], "400 InvalidArgument"),
            (["x-amz-grant-read": "abc"], "400 InvalidArgument"),
            (["x-amz-grant-write-acp": "id=\"\""], "400 InvalidArgument"),
        ]
    )
    func refusedHeaders(headers: [String: String], expected: String) {
        var fields = HTTPFields()
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        #expect(throws: S3Error.self) { try ObjectACL.requested(fields) }
        do {
            _ = try ObjectACL.requested(fields)
        } catch {
            #expect("\(error.status.code) \(error.code)" == expected)
        }
    }

    @Test("an AccessControlPolicy document of the owner gives its grants")
    func policyDocument() async throws {
        let tree = try await S3XML.tree(
            of: ByteBuffer(string: Vectors.policyDocument.replacingOccurrences(of: "OWNER", with: "demo")),
            root: "AccessControlPolicy",
            limits: ObjectACL.documentLimits
        )
        let acl = try ObjectACL(policy: tree, owner: "demo")
        #expect(acl.grants(owner: "demo").map(Self.describe) == ["FULL_CONTROL id=demo", "READ AllUsers"])
        #expect(acl.allowsPublicRead)
    }

    @Test(
        "an AccessControlPolicy S3 refuses: another owner, none, or a grant it cannot read",
        arguments: [
            (Vectors.policyDocument.replacingOccurrences(of: "OWNER", with: "someone-else"), "403 AccessDenied"),
            (
                Vectors.policyDocument.replacingOccurrences(of: "<Owner><ID>OWNER</ID></Owner>", with: "")
                    .replacingOccurrences(of: "OWNER", with: "demo"),
                "400 MalformedACLError"
            ),
            (
                Vectors.policyDocument.replacingOccurrences(of: "OWNER", with: "demo")
                    .replacingOccurrences(of: "<Permission>READ</Permission>", with: "<Permission>LOOK</Permission>"),
                "400 MalformedACLError"
            ),
            (
                Vectors.policyDocument.replacingOccurrences(of: "OWNER", with: "demo")
                    .replacingOccurrences(
                        of: "<URI>http://acs.amazonaws.com/groups/global/AllUsers</URI>",
                        with: "<EmailAddress>a@example.com</EmailAddress>"
                    ),
                "400 UnresolvableGrantByEmailAddress"
            ),
        ]
    )
    func refusedPolicy(document: String, expected: String) async throws {
        let tree = try await S3XML.tree(
            of: ByteBuffer(string: document),
            root: "AccessControlPolicy",
            limits: ObjectACL.documentLimits
        )
        do {
            _ = try ObjectACL(policy: tree, owner: "demo")
            Issue.record("taken: \(document)")
        } catch {
            #expect("\(error.status.code) \(error.code)" == expected)
        }
    }

    @Test("an object stored before ACLs were kept, or with an unreadable one, is private")
    func oldRecordIsPrivate() throws {
        let old = ObjectMetadata(
            key: try ObjectKey("demo/a.txt"),
            size: 1,
            sha256: [UInt8](repeating: 0, count: 32),
            attributes: ObjectAttributes(contentType: "text/plain")
        )
        #expect(ObjectACL(of: old) == .private)
        #expect(!ObjectACL(of: old).allowsPublicRead)
        #expect(ObjectTags(of: old).pairs.isEmpty)
        var odd = old
        odd.extras[ObjectACL.extra] = "grants:not json"
        #expect(ObjectACL(of: odd) == .private)
        // A record without the new fields decodes as before.
        let json = #"{"key":"demo/a.txt","size":1,"etag":"\"00\"","created":0,"extras":{},"content_type":"text/plain"}"#
        let decoded = try JSONDecoder().decode(ObjectMetadata.self, from: Data(json.utf8))
        #expect(ObjectACL(of: decoded) == .private && ObjectTags(of: decoded).pairs.isEmpty)
    }

    // MARK: - Tags

    @Test("x-amz-tagging is read as a URL query; the kept form reads back the same tags")
    func taggingHeader() throws {
        let tags = try #require(
            try ObjectTags.requested([
                HTTPField.Name("x-amz-tagging")!: "project=blue%20sky&tier=1&empty=&caf%C3%A9=a+b"
            ])
        )
        #expect(tags.pairs.map { "\($0.key)=\($0.value)" } == ["project=blue sky", "tier=1", "empty=", "café=a b"])
        #expect(ObjectTags(extraValue: tags.extraValue) == tags)
        #expect(ObjectTags([]).extraValue == nil)
        #expect(try ObjectTags.requested([:]) == nil)
    }

    @Test(
        "S3's tag limits, each refused with its code and words",
        arguments: [
            ((1...11).map { ("k\($0)", "v") }, "400 BadRequest Object tags cannot be greater than 10"),
            ([(Vectors.long.key + "k", "v")], "400 InvalidTag The TagKey you have provided is too long, max 128"),
            ([("k", Vectors.long.value + "v")], "400 InvalidTag The TagValue you have provided is too long, max 256"),
            ([("k", "1"), ("k", "2")], "400 InvalidTag Cannot provide multiple Tags with the same key"),
            ([("aws:createdBy", "me")], "400 InvalidTag Your TagKey cannot be prefixed with aws:"),
            ([("", "v")], "400 InvalidTag The TagKey you have provided is invalid"),
            ([("a,b", "v")], "400 InvalidTag The TagKey you have provided is invalid"),
            ([("k", "a;b")], "400 InvalidTag The TagValue you have provided is invalid"),
        ] as [([(String, String)], String)]
    )
    func limits(pairs: [(String, String)], expected: String) {
        do {
            _ = try ObjectTags(pairs.map { (key: $0.0, value: $0.1) }).checked()
            Issue.record("taken: \(pairs)")
        } catch {
            #expect("\(error.status.code) \(error.code) \(error.message)" == expected)
        }
    }

    @Test("what S3's limits allow is taken: 10 tags, 128 and 256 characters of any script, its punctuation")
    func withinLimits() throws {
        let ten = ObjectTags((1...10).map { (key: "k\($0)", value: "v") })
        #expect(try ten.checked() == ten)
        let edges = ObjectTags([
            (key: Vectors.long.key, value: Vectors.long.value),
            (key: String(repeating: "é", count: 128), value: "+ - = . _ : / @"), (key: "日本", value: ""),
        ])
        #expect(try edges.checked() == edges)
    }

    @Test("a Tagging document is read in order; one that is no Tagging is MalformedXML")
    func taggingDocument() async throws {
        let document = """
            <Tagging xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><TagSet><Tag><Key>b</Key><Value>2</Value></Tag>\
            <Tag><Key>a</Key><Value></Value></Tag></TagSet></Tagging>
            """
        let tags = try await ObjectTags.read(ByteBuffer(string: document))
        #expect(tags.pairs.map { "\($0.key)=\($0.value)" } == ["b=2", "a="])
        for bad in [
            "<Tagging></Tagging>", "<Tagging><TagSet><Tag><Key>a</Key></Tag></TagSet></Tagging>",
            "<Tags><TagSet/></Tags>",
        ] {
            await #expect(throws: S3Error.self) { try await ObjectTags.read(ByteBuffer(string: bad)) }
        }
    }

    // MARK: - Against a real server

    @Test("ACL and tags round-trip on a real server, each refusal changing nothing; public-read opens reads")
    func endToEnd() async throws {
        try await DiskServer.run { server in
            let signer = try await Signer(server: server)
            let path = "/demo/docs/acl-tagging.txt"
            let put = try await signer.send(
                "PUT",
                path,
                headers: ["x-amz-acl": "public-read", "x-amz-tagging": "project=blue&tier=1"],
                body: Data("hello".utf8)
            )
            #expect(put.status == 200)
            let acl = try await signer.send("GET", path, query: "acl")
            #expect(acl.status == 200)
            #expect(acl.text.contains("<Permission>FULL_CONTROL</Permission>"))
            #expect(acl.text.contains("<URI>http://acs.amazonaws.com/groups/global/AllUsers</URI>"))
            let head = try await signer.send("HEAD", path)
            #expect(head.header("x-amz-tagging-count") == "2")
            let (etag, modified) = (head.header("etag"), head.header("last-modified"))
            // Unsigned reads of a public-read object, as S3 serves them.
            #expect(try await HTTP.get(server.url(path)).text == "hello")
            #expect(try await HTTP.send("HEAD", server.url(path)).status == 200)

            // Each refusal: its status and code, and the object as it was.
            let eleven = (1...11).map { "<Tag><Key>k\($0)</Key><Value>v</Value></Tag>" }.joined()
            let refusals: [(String, String?, String, [String: String], String)] = [
                ("PUT", "tagging", "<Tagging><TagSet>\(eleven)</TagSet></Tagging>", [:], "400 BadRequest"),
                (
                    "PUT", "tagging",
                    "<Tagging><TagSet><Tag><Key>aws:x</Key><Value>v</Value></Tag></TagSet></Tagging>", [:],
                    "400 InvalidTag"
                ),
                ("PUT", "tagging", "<Tagging>", [:], "400 MalformedXML"),
                ("PUT", "acl", "", ["x-amz-acl": "everyone"], "400 InvalidArgument"),
                ("PUT", "acl", "", [:], "400 MissingSecurityHeader"),
                ("PUT", "acl", "", ["x-amz-acl": "private", "x-amz-grant-read": "id=x"], "400 InvalidRequest"),
                (
                    "PUT", "acl", Vectors.policyDocument.replacingOccurrences(of: "OWNER", with: "other"), [:],
                    "403 AccessDenied"
                ),
                ("PUT", "acl", Vectors.policyDocument, ["x-amz-acl": "private"], "400 UnexpectedContent"),
                ("PUT", nil, "overwrite", ["x-amz-tagging": "a=1&a=2"], "400 InvalidTag"),
                ("PUT", nil, "overwrite", ["x-amz-acl": "nope"], "400 InvalidArgument"),
            ]
            for (method, query, body, headers, expected) in refusals {
                let reply = try await signer.send(method, path, query: query, headers: headers, body: Data(body.utf8))
                #expect("\(reply.status) \(reply.xmlError?.code ?? "-")" == expected, "\(query ?? "") \(headers)")
                let after = try await signer.send("HEAD", path)
                #expect(after.header("etag") == etag && after.header("last-modified") == modified)
                #expect(after.header("x-amz-tagging-count") == "2")
                #expect(try await HTTP.get(server.url(path)).text == "hello")
            }

            // A change of tags or ACL is no write: ETag and Last-Modified stay, no ObjectCreated; S3's own events.
            #expect(try await Self.eventNames(server) == ["ObjectCreated:Put"])
            let tagged = try await signer.send(
                "PUT",
                path,
                query: "tagging",
                body: Data("<Tagging><TagSet><Tag><Key>only</Key><Value>one</Value></Tag></TagSet></Tagging>".utf8)
            )
            #expect(tagged.status == 200)
            let tagging = try await signer.send("GET", path, query: "tagging")
            #expect(tagging.text.contains("<Tag><Key>only</Key><Value>one</Value></Tag>"))
            #expect(try await signer.send("PUT", path, query: "acl", headers: ["x-amz-acl": "private"]).status == 200)
            let changed = try await signer.send("HEAD", path)
            #expect(changed.header("etag") == etag && changed.header("last-modified") == modified)
            #expect(changed.header("x-amz-tagging-count") == "1")
            #expect(try await Self.eventNames(server) == ["ObjectCreated:Put", "ObjectTagging:Put", "ObjectAcl:Put"])
            // Private again: an unsigned read is refused as before.
            let unsigned = try await HTTP.get(server.url(path))
            #expect(unsigned.status == 401 && unsigned.xmlError?.code == "AccessDenied")
            #expect(try await signer.send("DELETE", path, query: "tagging").status == 204)
            #expect(try await signer.send("HEAD", path).header("x-amz-tagging-count") == nil)
            let empty = try await signer.send("GET", path, query: "tagging")
            #expect(empty.text.contains("<TagSet></TagSet>"))

            // An overwrite that names neither resets both; a missing object is NoSuchKey.
            #expect(
                try await signer.send("PUT", path, query: "acl", headers: ["x-amz-acl": "public-read"]).status == 200
            )
            #expect(try await signer.send("PUT", path, body: Data("again".utf8)).status == 200)
            #expect(try await HTTP.get(server.url(path)).status == 401)
            let missing = try await signer.send("GET", "/demo/docs/none.txt", query: "acl")
            #expect(missing.status == 404 && missing.xmlError?.code == "NoSuchKey")
        }
    }

    // MARK: - Helpers

    /// The names of the events the server emitted, oldest first.
    private static func eventNames(_ server: DiskServer) async throws -> [String] {
        let events = try #require(
            try await HTTP.get(server.url("/_mockcdn/events?after=0")).json["events"] as? [[String: Any]]
        )
        return events.compactMap { ($0["record"] as? [String: Any])?["eventName"] as? String }
    }

    private static func describe(_ grant: ObjectACL.Grant) -> String {
        switch grant.grantee {
        case .user(let id): return "\(grant.permission.rawValue) id=\(id)"
        case .group(let uri): return "\(grant.permission.rawValue) \(uri.split(separator: "/").last ?? "")"
        }
    }

    /// Sends requests signed in the `Authorization` header with the demo app's keys, at the server's clock.
    struct Signer {
        let server: DiskServer
        let now: Int64

        init(server: DiskServer) async throws {
            self.server = server
            self.now = try await server.clockNow()
        }

        func send(
            _ method: String,
            _ path: String,
            query: String? = nil,
            headers: [String: String] = [:],
            body: Data = Data()
        ) async throws -> Reply {
            let url = self.server.url(path + (query.map { "?" + $0 } ?? ""))
            let host = "\(url.host ?? "127.0.0.1"):\(url.port ?? 80)"
            let signed = SigV4.authorizationHeaders(
                method: method,
                host: host,
                path: path,
                query: query.map { [(name: $0, value: "")] } ?? [],
                headers: headers,
                payloadHash: Digest.sha256(Array(body)).hexString,
                credentials: SigV4Credentials(
                    accessKeyID: AppConfiguration.demo.apiKey,
                    secretAccessKey: AppConfiguration.demo.apiSecret,
                    region: "us-east-1"
                ),
                date: self.now
            )
            var all = headers
            for (name, value) in signed where name.lowercased() != "host" { all[name] = value }
            all["Content-Type"] = "application/octet-stream"
            return try await HTTP.send(method, url, headers: all, body: body.isEmpty ? nil : body)
        }
    }
}
