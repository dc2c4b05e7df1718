import Foundation
import Testing

@testable import MockCDNCore

@Suite("SigV2 presigned URLs")
struct SigV2Tests {
    static let awsKey = "AKIAIOSFODNN7EXAMPLE"
    static let awsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    static let demoKey = "demo-key"
    static let demoSecret = "demo-secret-for-local-testing-only"

    /// Made by boto3 1.43.11 `generate_presigned_url("get_object", ...)` with only `endpoint_url` and the demo
    /// app's keys: no region, so `us-east-1`, where botocore presigns with SigV2 unless told otherwise.
    static let boto3URL =
        "http://127.0.0.1:8080/demo/fixtures/sample.jpg?AWSAccessKeyId=demo-key"
        + "&Signature=%2F4jERbgjjgu55%2B2mSSbhc%2BlK2%2FY%3D&Expires=1795435219"
    static let boto3Expires: Int64 = 1_795_435_219

    /// The same, for a key botocore percent-encodes (space, `+`, `é`, `!`; `~` stays).
    static let boto3EncodedURL =
        "http://127.0.0.1:8080/demo/attachments/x/a%20b%2B%C3%A9~%21.txt?AWSAccessKeyId=demo-key"
        + "&Signature=kHIWuLGItS2jSV9EN2ZhBoLbSok%3D&Expires=1795435589"

    /// The same with sub-resources (`response-*` overrides, `versionId`) and a header botocore moves into the
    /// query (`x-amz-request-payer`): all of them signed.
    static let boto3SubresourceURL =
        "http://127.0.0.1:8080/demo/fixtures/sample.jpg?response-content-type=text%2Fplain"
        + "&response-content-disposition=attachment%3B%20filename%3D%22a%20b.txt%22&versionId=v1"
        + "&AWSAccessKeyId=demo-key&Signature=1txOjnj9VdevQd%2BlQb7o9oKG0uo%3D&x-amz-request-payer=requester"
        + "&Expires=1795435588"
    static let boto3SubresourceExpires: Int64 = 1_795_435_588

    static func verify(
        _ url: String,
        now: Int64,
        method: String = "GET",
        headers: [(name: String, value: String)] = [],
        key: String = demoKey,
        secret: String = demoSecret
    ) throws(AccessDenied) {
        let parsed = PresignedURLParts(url)
        try SigV2.verify(
            query: parsed.query,
            method: method,
            path: parsed.percentEncodedPath,
            headers: headers,
            accessKeyID: key,
            secretAccessKey: secret,
            now: now
        )
    }

    // MARK: - Documented vectors

    /// AWS's query-string example ("Signing and authenticating REST requests", Signature Version 2):
    /// `GET /photos/puppy.jpg?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1175139620&Signature=...`. Its
    /// signature `NpgCjnDzrM+WFzoENXmpNDUsSn8=` is over `/johnsmith/photos/puppy.jpg`, the bucket the page
    /// named before it was renamed `awsexamplebucket1` without signing again; for that bucket the signature
    /// is `1No4mq5ETf02z8aet9voy6gui6E=`. Path-style, as MockCDN addresses buckets.
    @Test(
        "presigning reproduces AWS's documented query-string example, and it verifies until Expires",
        arguments: [
            ("/johnsmith/photos/puppy.jpg", "NpgCjnDzrM%2BWFzoENXmpNDUsSn8%3D"),
            ("/awsexamplebucket1/photos/puppy.jpg", "1No4mq5ETf02z8aet9voy6gui6E%3D"),
        ]
    )
    func awsExample(path: String, signature: String) throws {
        let url = SigV2.presignedURL(
            scheme: "http",
            authority: "s3.amazonaws.com",
            path: path,
            accessKeyID: Self.awsKey,
            secretAccessKey: Self.awsSecret,
            expires: 1_175_139_620
        )
        #expect(
            url == "http://s3.amazonaws.com\(path)?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=\(signature)"
                + "&Expires=1175139620"
        )
        try Self.verify(url, now: 1_175_139_620, key: Self.awsKey, secret: Self.awsSecret)
    }

    // The page's header-authentication examples are checked request by request in SigV2HeaderTests.

    @Test("the documented upload's headers canonicalize as the page shows")
    func documentedAmzHeaders() {
        let headers: [(name: String, value: String)] = [
            ("Host", "static.johnsmith.net:8080"), ("x-amz-acl", "public-read"), ("content-type", "x"),
            ("X-Amz-Meta-ReviewedBy", "joe@johnsmith.net"), ("X-Amz-Meta-ReviewedBy", "jane@johnsmith.net"),
            ("X-Amz-Meta-FileChecksum", "0x02661779"), ("X-Amz-Meta-ChecksumAlgorithm", " crc32 "),
        ]
        #expect(
            SigV2.canonicalizedAmzHeaders(headers)
                == "x-amz-acl:public-read\nx-amz-meta-checksumalgorithm:crc32\nx-amz-meta-filechecksum:0x02661779\n"
                + "x-amz-meta-reviewedby:joe@johnsmith.net,jane@johnsmith.net\n"
        )
    }

    /// RFC 2202 section 3, cases 1, 2, 3, 6 and 7 (the last two with a key longer than SHA-1's block).
    @Test(
        "HMAC-SHA1 gives RFC 2202's test vectors",
        arguments: [
            ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8), "b617318655057264e28bc0b6fb378c8ef146be00"),
            (
                Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
                "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"
            ),
            (
                [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
                "125d7342b9ac11cd91a39af48aa17b4f63f175d3"
            ),
            (
                [UInt8](repeating: 0xaa, count: 80),
                Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                "aa4ae5e15272d00e95705637ce8a3b55ed402112"
            ),
            (
                [UInt8](repeating: 0xaa, count: 80),
                Array("Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data".utf8),
                "e8e99d0f45237d786d6bbaa7965c7808bbff1a91"
            ),
        ]
    )
    func hmacSHA1(key: [UInt8], message: [UInt8], expected: String) {
        #expect(HMAC.sha1(message, key: key).hexString == expected)
    }

    // MARK: - boto3 URLs

    @Test("presigning reproduces boto3's SigV2 URLs byte for byte, an encoded key included")
    func boto3Examples() {
        for (url, path, expires) in [
            (Self.boto3URL, "/demo/fixtures/sample.jpg", Self.boto3Expires),
            (Self.boto3EncodedURL, "/demo/attachments/x/a b+é~!.txt", 1_795_435_589),
        ] {
            let ours = SigV2.presignedURL(
                scheme: "http",
                authority: "127.0.0.1:8080",
                path: path,
                accessKeyID: Self.demoKey,
                secretAccessKey: Self.demoSecret,
                expires: expires
            )
            #expect(ours == url)
        }
    }

    @Test("boto3's URLs verify up to and including their Expires second, and expire after it by the clock")
    func verifiesAndExpires() throws {
        try Self.verify(Self.boto3URL, now: Self.boto3Expires - 300)
        try Self.verify(Self.boto3URL, now: Self.boto3Expires)
        try Self.verify(Self.boto3EncodedURL, now: 1_795_435_589)
        let expired = #expect(throws: AccessDenied.self) {
            try Self.verify(Self.boto3URL, now: Self.boto3Expires + 1)
        }
        #expect(expired?.code == "AccessDenied")
        #expect(expired?.kind == .forbidden)
        #expect(expired?.message == "Request has expired")
        #expect(
            expired?.details == [.init("Expires", "2026-11-23T12:00:19Z"), .init("ServerTime", "2026-11-23T12:00:20Z")]
        )
        #expect(expired?.expiredAt == Self.boto3Expires)
    }

    @Test("signed sub-resources and headers moved into the query verify; appended parameters are not signed")
    func subresources() throws {
        try Self.verify(Self.boto3SubresourceURL, now: Self.boto3SubresourceExpires)
        try Self.verify(Self.boto3SubresourceURL + "&w=150&h=*&resize=clip&fat=a%2Bb%3D", now: Self.boto3Expires)
        try Self.verify(Self.boto3URL + "&w=150&ro=0", now: Self.boto3Expires)
        for (dropped, replacement) in [
            ("&versionId=v1", ""), ("response-content-type=text%2Fplain", "response-content-type=text%2Fhtml"),
            ("&x-amz-request-payer=requester", ""),
        ] {
            let changed = Self.boto3SubresourceURL.replacingOccurrences(of: dropped, with: replacement)
            #expect(changed != Self.boto3SubresourceURL)
            let denial = #expect(throws: AccessDenied.self) {
                try Self.verify(changed, now: Self.boto3SubresourceExpires)
            }
            #expect(denial?.code == "SignatureDoesNotMatch", "\(dropped)")
        }
    }

    @Test("the canonicalized resource takes the signed sub-resources, sorted by name, values decoded")
    func canonicalizedResource() {
        let query: [(name: String, value: String)] = [
            ("versionId", "v1"), ("w", "10"), ("acl", ""), ("response-content-type", "text/plain; a=b"),
            ("fat", "x"), ("AWSAccessKeyId", "k"), ("Signature", "s"), ("Expires", "1"), ("uploads", ""),
        ]
        #expect(
            SigV2.canonicalizedResource(path: "/demo/a%20b", query: query)
                == "/demo/a%20b?acl&response-content-type=text/plain; a=b&uploads&versionId=v1"
        )
        #expect(SigV2.canonicalizedResource(path: "/demo/a", query: [("w", "1")]) == "/demo/a")
    }

    @Test("a request header signed into the URL must come back: Content-Type and x-amz-* headers count")
    func signedHeaders() throws {
        // Content-Type sent with a GET that was presigned without one changes what was signed.
        let denial = #expect(throws: AccessDenied.self) {
            try Self.verify(Self.boto3URL, now: Self.boto3Expires, headers: [("Content-Type", "text/plain")])
        }
        #expect(denial?.code == "SignatureDoesNotMatch")
        #expect(throws: AccessDenied.self) {
            try Self.verify(Self.boto3URL, now: Self.boto3Expires, headers: [("X-Amz-Meta-A", "1")])
        }
        try Self.verify(
            Self.boto3URL,
            now: Self.boto3Expires,
            headers: [("Host", "elsewhere"), ("Range", "bytes=0-1")]
        )
    }

    // MARK: - Refusals

    struct Tampering: Sendable, CustomTestStringConvertible {
        let name: String
        let replace: String
        let with: String
        let code: String
        let message: String
        var testDescription: String { self.name }
    }

    static let tamperings: [Tampering] = [
        .init(
            name: "one signature character",
            replace: "Signature=%2F4jE",
            with: "Signature=%2F4jF",
            code: "SignatureDoesNotMatch",
            message: "The request signature we calculated"
        ),
        .init(
            name: "signature not base64",
            replace: "Signature=%2F4jE",
            with: "Signature=%2F4j*",
            code: "SignatureDoesNotMatch",
            message: "The request signature we calculated"
        ),
        .init(
            name: "another key in the path",
            replace: "/sample.jpg",
            with: "/sample.png",
            code: "SignatureDoesNotMatch",
            message: "The request signature we calculated"
        ),
        .init(
            name: "later Expires",
            replace: "Expires=1795435219",
            with: "Expires=1795435299",
            code: "SignatureDoesNotMatch",
            message: "The request signature we calculated"
        ),
        .init(
            name: "unknown access key",
            replace: "AWSAccessKeyId=demo-key",
            with: "AWSAccessKeyId=demo-kez",
            code: "InvalidAccessKeyId",
            message: "The AWS Access Key Id you provided does not exist in our records."
        ),
        .init(
            name: "no Signature",
            replace: "&Signature=%2F4jERbgjjgu55%2B2mSSbhc%2BlK2%2FY%3D",
            with: "",
            code: "AccessDenied",
            message: "Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters"
        ),
        .init(
            name: "empty Expires",
            replace: "Expires=1795435219",
            with: "Expires=",
            code: "AccessDenied",
            message: "Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters"
        ),
        .init(
            name: "Expires not a number",
            replace: "Expires=1795435219",
            with: "Expires=soon",
            code: "AccessDenied",
            message: "Invalid date (should be seconds since epoch): soon"
        ),
        .init(
            name: "negative Expires",
            replace: "Expires=1795435219",
            with: "Expires=-1795435219",
            code: "AccessDenied",
            message: "Invalid date (should be seconds since epoch): -1795435219"
        ),
        .init(
            name: "Expires past ten digits",
            replace: "Expires=1795435219",
            with: "Expires=99999999999999999999",
            code: "AccessDenied",
            message: "Invalid date (should be seconds since epoch)"
        ),
        .init(
            name: "an added signed sub-resource",
            replace: "&Expires",
            with: "&response-content-type=text%2Fhtml&Expires",
            code: "SignatureDoesNotMatch",
            message: "The request signature we calculated"
        ),
    ]

    @Test("a changed URL is refused with S3's code and a message naming the rule", arguments: tamperings)
    func tampered(_ case: Tampering) {
        let url = Self.boto3URL.replacingOccurrences(of: `case`.replace, with: `case`.with)
        #expect(url != Self.boto3URL)
        let denial = #expect(throws: AccessDenied.self) {
            try Self.verify(url, now: Self.boto3Expires - 1)
        }
        #expect(denial?.code == `case`.code)
        #expect(denial?.kind == .forbidden)
        #expect(denial?.message.hasPrefix(`case`.message) == true, "\(denial?.message ?? "")")
    }

    @Test("a mismatch shows the string to sign, never the signature, and redacts a session token")
    func mismatchDetails() throws {
        let url =
            Self.boto3URL.replacingOccurrences(of: "/sample.jpg", with: "/sample.png")
            + "&x-amz-security-token=SESSIONSECRET"
        let denial = #expect(throws: AccessDenied.self) { try Self.verify(url, now: Self.boto3Expires) }
        let details = try #require(denial?.details)
        #expect(details.map(\.name) == ["AWSAccessKeyId", "StringToSign"])
        #expect(details[0].value == "demo-key")
        #expect(
            details[1].value == "GET\n\n\n1795435219\nx-amz-security-token:REDACTED\n/demo/fixtures/sample.png"
        )
        #expect(!details.contains { $0.value.contains("4jERbgjjgu55") || $0.value.contains("SECRET") })
    }

    @Test("the method is signed: a GET URL does not authorise HEAD")
    func method() {
        let denial = #expect(throws: AccessDenied.self) {
            try Self.verify(Self.boto3URL, now: Self.boto3Expires, method: "HEAD")
        }
        #expect(denial?.details.last?.value.hasPrefix("HEAD\n") == true)
    }

    @Test("AWSAccessKeyId alone marks a SigV2 credential; CloudFront's Signature and Expires do not")
    func presence() {
        #expect(SigV2.isPresent(in: [("AWSAccessKeyId", "")]))
        #expect(SigV2.isPresent(in: [("Expires", "1"), ("AWSAccessKeyId", "k"), ("Key-Pair-Id", "K")]))
        #expect(!SigV2.isPresent(in: [("Expires", "1"), ("Signature", "s"), ("Key-Pair-Id", "K")]))
        #expect(!SigV2.isPresent(in: [("awsaccesskeyid", "k")]))
    }
}
