import Foundation
import MockCDNCore
import Testing

@testable import MockCDNServer

@Suite("Journal redaction: secrets by rule, not by spelling")
struct JournalRedactionTests {
    static let secret = "s3cr3tVALUE"
    static let jwt = JWT.sign(["user_id": "alice", "exp": 4_102_444_800], secret: "journal-test-secret-32-bytes-long!")
    /// A FAT whose base64 holds `+`, `/` or `=`, so percent-encoding changes it.
    static let fat: String = {
        let key = HMACKey("journal-test-secret-32-bytes-long!")
        let claims = FileAccessClaims(appID: "demo", userID: "alice", issuedAt: 1000, expiresAt: 4600)
        while true {
            let token = FileAccessToken.issue(claims, key: key)
            if token.contains("+") || token.contains("/") { return token }
        }
    }()

    /// Records one request in a fresh journal, as the middleware does.
    ///
    /// - Parameters:
    ///   - path: the path as sent.
    ///   - query: the query as sent.
    /// - Returns: the entry's path and query.
    static func record(path: String = "/demo/attachments/a.jpg", query: String? = nil) -> (path: String, query: String)
    {
        let entry = Journal(capacity: 10).record(
            method: "GET",
            path: path,
            query: QueryItems(query),
            clock: 0,
            state: .init(credential: .none, status: 0, bytesIn: 0, bytesOut: 0, durationMilliseconds: 0, fault: nil)
        )
        return (entry.path, entry.query)
    }

    @Test(
        "a secret query parameter is hidden however its name is spelled; the name stays",
        arguments: [
            "fat", "FAT", "Fat", "fAt", "fat[]", "fat%5B%5D", "fat[0]", "FAT[x][y]", "%66at", "%46%41%54", "%2566at",
            "Signature", "signature", "SIGNATURE[]", "X-Amz-Signature", "x-amz-signature", "X-Amz-Security-Token",
            "x-amz-security-token", "token", "Token", "access_token", "Access_Token[]", "authorization",
            "Authorization", "jwt", "JWT",
        ]
    )
    func secretNames(_ name: String) {
        for query in ["\(name)=\(Self.secret)", "w=100&\(name)=\(Self.secret)&h=50"] {
            let recorded = Self.record(query: query).query
            #expect(!recorded.contains(Self.secret), "\(query) -> \(recorded)")
            #expect(recorded.contains("\(name)=REDACTED"), "\(query) -> \(recorded)")
        }
    }

    @Test(
        "a secret after a stray `?` or a `;` inside a pair is hidden too, and what follows it",
        arguments: [
            "w=10?FAT=s3cr3tVALUE", "w=10?Fat=s3cr3tVALUE&h=5", "w=10;fat=s3cr3tVALUE", "w=10?fat[]=s3cr3tVALUE",
            "fat=s3cr3t?VALUE", "token=s3cr3t;VALUE",
        ]
    )
    func secretsInsidePairs(_ query: String) {
        let recorded = Self.record(query: query).query
        #expect(!recorded.contains("s3cr3t") && !recorded.contains("VALUE"), "\(query) -> \(recorded)")
        #expect(recorded.contains("=REDACTED"))
    }

    @Test("a credential is hidden in any query value or as a bare name, whatever the parameter is called")
    func credentialValues() {
        for (query, secret) in [
            ("auth=\(Self.jwt)", Self.jwt), ("u=Bearer%20\(Self.jwt)", Self.jwt), ("\(Self.jwt)", Self.jwt),
            ("x=\(PercentEncoding.encode(Self.fat))", Self.fat), ("x=\(Self.fat)", Self.fat),
            ("next=https%3A%2F%2Fcdn%2Fa.jpg%3Ffat%3D\(PercentEncoding.encode(Self.fat))", Self.fat),
        ] {
            let recorded = Self.record(query: query).query
            let pieces = secret.split(separator: ".")
            #expect(pieces.allSatisfy { !recorded.contains($0) && !recorded.contains(PercentEncoding.encode($0)) })
            #expect(recorded.contains("REDACTED"), "\(recorded)")
        }
    }

    @Test(
        "a secret path parameter is hidden however its name is spelled, up to the next `;`, slashes included",
        arguments: [
            ("/demo/a.jpg;fat=s3cr3tVALUE", "/demo/a.jpg;fat=REDACTED"),
            ("/demo/a.jpg;FAT=s3cr3tVALUE;w=10", "/demo/a.jpg;FAT=REDACTED;w=10"),
            ("/demo;fat[]=s3cr3tVALUE/a.jpg", "/demo;fat[]=REDACTED"),
            ("/demo/a.jpg;%66at=s3cr3tVALUE", "/demo/a.jpg;%66at=REDACTED"),
            ("/demo/a.jpg;Signature=s3cr3t/VALUE==;Key-Pair-Id=K1", "/demo/a.jpg;Signature=REDACTED;Key-Pair-Id=K1"),
            ("/demo/a.jpg;w=10;x-amz-security-token=s3cr3tVALUE", "/demo/a.jpg;w=10;x-amz-security-token=REDACTED"),
        ]
    )
    func secretPathParameters(_ path: String, _ expected: String) {
        #expect(Self.record(path: path).path == expected)
    }

    @Test("a path segment or path parameter that holds a JWT or a FAT is hidden")
    func credentialSegments() {
        let encodedFAT = PercentEncoding.encode(Self.fat)
        for (path, expected) in [
            ("/demo/\(Self.jwt)/a.jpg", "/demo/REDACTED/a.jpg"),
            ("/demo/\(Self.jwt)", "/demo/REDACTED"),
            ("/\(encodedFAT)/a.jpg", "/REDACTED/a.jpg"),
            ("/demo/Bearer%20\(Self.jwt)", "/demo/REDACTED"),
            ("/demo/a.jpg;auth=\(Self.jwt)", "/demo/a.jpg;auth=REDACTED"),
            ("/demo/a.jpg;x=\(encodedFAT);w=1", "/demo/a.jpg;x=REDACTED;w=1"),
            ("/demo/%65yJ\(Self.jwt.dropFirst(3))/a.jpg", "/demo/REDACTED/a.jpg"),
        ] {
            #expect(Self.record(path: path).path == expected, "\(path)")
        }
    }

    @Test("ordinary parameters and paths stay as sent, signed-link parameters that are not secrets included")
    func ordinaryStaysVisible() {
        // A CloudFront policy is base64 JSON too (`eyJ...`), but has no dot: it is not taken for a token.
        let policy = Base64.encode(Array(#"{"Statement":[{"Resource":"https://cdn/*"}]}"#.utf8), .cloudFront)
        let query =
            "w=100&h=50&fit=cover&Expires=1700000000&Key-Pair-Id=K2JCJMDEHXQW5F&Policy=\(policy)"
            + "&X-Amz-Credential=AKIDEXAMPLE%2F20150830%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Expires=300"
            + "&api_key=demo-key&fatty=1&tokens=2&x-amz-signatures=3"
        #expect(Self.record(query: query).query == query)
        for path in [
            "/demo/attachments/photo.v2.jpg", "/demo/a.jpg;w=10;h=20", "/demo/keyJoin.tar.gz", "/eyJ/a.b",
            "/channels/messaging/general/file", "/demo/%E2%82%AC.png", "/demo/%zz%65.txt",
        ] {
            #expect(Self.record(path: path).path == path)
        }
    }
}
