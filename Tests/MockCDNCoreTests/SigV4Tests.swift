import Foundation
import MockCDNCore
import Testing

@Suite("SigV4 presigned URLs")
struct SigV4Tests {
    /// AWS's documented example: "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)",
    /// GET `test.txt` from `examplebucket`, 24 May 2013, valid for 86400 s.
    static let aws = SigV4Credentials(
        accessKeyID: "AKIAIOSFODNN7EXAMPLE",
        secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        region: "us-east-1"
    )
    static let awsDate = AmzDate.parseCompact("20130524T000000Z")!
    static let awsURL =
        "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
        + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
        + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"

    /// Made by boto3 `generate_presigned_url` (s3v4, path-style) against a local MockCDN with the demo app.
    static let demo = SigV4Credentials(
        accessKeyID: "demo-key",
        secretAccessKey: "demo-secret-for-local-testing-only",
        region: "us"
    )
    static let boto3URL =
        "http://127.0.0.1:18080/demo/attachments/6bf5be05-bfe6-461b-8f40-e943b453fbf6/h.txt"
        + "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=demo-key%2F20261121%2Fus%2Fs3%2Faws4_request"
        + "&X-Amz-Date=20261121T134725Z&X-Amz-Expires=60&X-Amz-SignedHeaders=host"
        + "&X-Amz-Signature=b877124fafdc193f846a9339c70745fc88d37d17e979c9f24401dc8cc9c675db"
    static let boto3Date = AmzDate.parseCompact("20261121T134725Z")!

    static func verify(
        _ url: String,
        credentials: SigV4Credentials,
        now: Int64,
        method: String = "GET",
        appendable: Set<String> = []
    ) throws(AccessDenied) {
        let parsed = PresignedURLParts(url)
        try SigV4.verify(
            query: parsed.query,
            method: method,
            path: parsed.path,
            header: { $0 == "host" ? parsed.authority : nil },
            credentials: credentials,
            now: now,
            appendable: appendable
        )
    }

    @Test("presigning reproduces AWS's documented example byte for byte")
    func awsExample() {
        let url = SigV4.presignedURL(
            scheme: "https",
            authority: "examplebucket.s3.amazonaws.com",
            path: "/test.txt",
            credentials: Self.aws,
            date: Self.awsDate,
            expires: 86400
        )
        #expect(url == Self.awsURL)
    }

    @Test("presigning reproduces a boto3 URL byte for byte")
    func boto3Example() {
        let url = SigV4.presignedURL(
            scheme: "http",
            authority: "127.0.0.1:18080",
            path: "/demo/attachments/6bf5be05-bfe6-461b-8f40-e943b453fbf6/h.txt",
            credentials: Self.demo,
            date: Self.boto3Date,
            expires: 60
        )
        #expect(url == Self.boto3URL)
    }

    @Test("AWS's example and the boto3 URL verify inside their lifetime, and expire at its end")
    func verifiesAndExpires() throws {
        try Self.verify(Self.awsURL, credentials: Self.aws, now: Self.awsDate + 86399)
        try Self.verify(Self.boto3URL, credentials: Self.demo, now: Self.boto3Date)
        let expired = #expect(throws: AccessDenied.self) {
            try Self.verify(Self.boto3URL, credentials: Self.demo, now: Self.boto3Date + 60)
        }
        #expect(expired?.message == "Request has expired")
        #expect(
            expired?.details == [
                .init("X-Amz-Expires", "60"), .init("Expires", "2026-11-21T13:48:25Z"),
                .init("ServerTime", "2026-11-21T13:48:25Z"),
            ]
        )
        #expect(expired?.expiredAt == Self.boto3Date + 60)
    }

    /// boto3 1.x `generate_presigned_url("put_object", ContentType="image/png", ExpiresIn=900)` at `boto3Date`,
    /// path-style, region `us`: the content type becomes a signed header.
    static let boto3PutURL =
        "http://127.0.0.1:18080/demo/media/0c4e1f7a/photo.png"
        + "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=demo-key%2F20261121%2Fus%2Fs3%2Faws4_request"
        + "&X-Amz-Date=20261121T134725Z&X-Amz-Expires=900&X-Amz-SignedHeaders=content-type%3Bhost"
        + "&X-Amz-Signature=3a1054cf02a455fd65be883ed19a056365950a5c9ef28b1f308806549e812133"

    @Test("a presigned PUT with a signed content type reproduces boto3's, and verifies only with that type")
    func boto3PutExample() throws {
        let url = SigV4.presignedURL(
            method: "PUT",
            scheme: "http",
            authority: "127.0.0.1:18080",
            path: "/demo/media/0c4e1f7a/photo.png",
            credentials: Self.demo,
            date: Self.boto3Date,
            expires: 900,
            headers: ["content-type": "image/png"]
        )
        #expect(url == Self.boto3PutURL)
        let parsed = PresignedURLParts(url)
        func verify(method: String, contentType: String?) throws(AccessDenied) {
            try SigV4.verify(
                query: parsed.query,
                method: method,
                path: parsed.path,
                header: { $0 == "host" ? parsed.authority : $0 == "content-type" ? contentType : nil },
                credentials: Self.demo,
                now: Self.boto3Date + 899
            )
        }
        try verify(method: "PUT", contentType: "image/png")
        for (method, type) in [("PUT", "text/html"), ("PUT", nil), ("GET", "image/png")] {
            let denial = #expect(throws: AccessDenied.self) { try verify(method: method, contentType: type) }
            #expect(denial?.code == "SignatureDoesNotMatch")
        }
    }

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
            name: "one signature digit",
            replace: "b877124f",
            with: "b877124e",
            code: "SignatureDoesNotMatch",
            message: "The request signature we calculated"
        ),
        .init(
            name: "short signature",
            replace: "&X-Amz-Signature=b8",
            with: "&X-Amz-Signature=",
            code: "SignatureDoesNotMatch",
            message: "X-Amz-Signature must be 64 hexadecimal digits"
        ),
        .init(
            name: "another key in the path",
            replace: "/h.txt",
            with: "/i.txt",
            code: "SignatureDoesNotMatch",
            message: "The request signature we calculated"
        ),
        .init(
            name: "longer lifetime",
            replace: "X-Amz-Expires=60",
            with: "X-Amz-Expires=61",
            code: "SignatureDoesNotMatch",
            message: "The request signature we calculated"
        ),
        .init(
            name: "lifetime over a week",
            replace: "X-Amz-Expires=60",
            with: "X-Amz-Expires=604801",
            code: "AccessDenied",
            message: "X-Amz-Expires must be less than a week"
        ),
        .init(
            name: "zero lifetime",
            replace: "X-Amz-Expires=60",
            with: "X-Amz-Expires=0",
            code: "AccessDenied",
            message: "X-Amz-Expires must be a positive number"
        ),
        .init(
            name: "unknown access key",
            replace: "Credential=demo-key",
            with: "Credential=other-key",
            code: "InvalidAccessKeyId",
            message: "The AWS Access Key Id you provided does not exist"
        ),
        .init(
            name: "wrong region",
            replace: "%2Fus%2Fs3",
            with: "%2Fus-east-1%2Fs3",
            code: "AuthorizationQueryParametersError",
            message: "Error parsing the X-Amz-Credential parameter; the region 'us-east-1' is wrong; expecting 'us'"
        ),
        .init(
            name: "scope date differs from X-Amz-Date",
            replace: "%2F20261121%2F",
            with: "%2F20261122%2F",
            code: "AccessDenied",
            message: "does not match X-Amz-Date"
        ),
        .init(
            name: "impossible date",
            replace: "X-Amz-Date=20261121T134725Z",
            with: "X-Amz-Date=20261131T134725Z",
            code: "AccessDenied",
            message: "X-Amz-Date must be in the ISO8601 Long Format"
        ),
        .init(
            name: "another algorithm",
            replace: "AWS4-HMAC-SHA256",
            with: "AWS4-HMAC-SHA1",
            code: "AccessDenied",
            message: "X-Amz-Algorithm only supports"
        ),
        .init(
            name: "short credential",
            replace: "%2Faws4_request",
            with: "",
            code: "AccessDenied",
            message: "the Credential is mal-formed"
        ),
        .init(
            name: "host not signed",
            replace: "X-Amz-SignedHeaders=host",
            with: "X-Amz-SignedHeaders=x-amz-date",
            code: "AccessDenied",
            message: "X-Amz-SignedHeaders must be sorted lower-case names and include host"
        ),
        .init(
            name: "authorization among the signed headers",
            replace: "X-Amz-SignedHeaders=host",
            with: "X-Amz-SignedHeaders=authorization%3Bhost",
            code: "AccessDenied",
            message: "X-Amz-SignedHeaders may name only host, content-length, content-md5, content-type and x-amz-*"
        ),
        .init(
            name: "extra parameter",
            replace: "&X-Amz-Signature",
            with: "&response-content-type=text%2Fhtml&X-Amz-Signature",
            code: "SignatureDoesNotMatch",
            message: "The request signature we calculated"
        ),
    ]

    @Test("a changed URL is refused with S3's code and a message naming the rule", arguments: tamperings)
    func tampered(_ case: Tampering) {
        let url = Self.boto3URL.replacingOccurrences(of: `case`.replace, with: `case`.with)
        #expect(url != Self.boto3URL)
        let denial = #expect(throws: AccessDenied.self) {
            try Self.verify(url, credentials: Self.demo, now: Self.boto3Date + 1)
        }
        #expect(denial?.code == `case`.code)
        #expect(denial?.kind == (`case`.code == "AuthorizationQueryParametersError" ? .malformed : .forbidden))
        #expect(denial?.message.contains(`case`.message) == true, "\(denial?.message ?? "")")
    }

    @Test("a credential scoped to another region is S3's 400 naming the expected region, before the key is checked")
    func wrongRegion() {
        // What boto3 with region_name="eu-west-1" makes for an app whose S3 region is us-east-1.
        let url = Self.awsURL.replacingOccurrences(of: "%2Fus-east-1%2F", with: "%2Feu-west-1%2F")
        let expected = AccessDenied(
            "Error parsing the X-Amz-Credential parameter; the region 'eu-west-1' is wrong; expecting 'us-east-1'",
            code: "AuthorizationQueryParametersError",
            details: [.init("Region", "us-east-1")],
            kind: .malformed
        )
        let denial = #expect(throws: AccessDenied.self) {
            try Self.verify(url, credentials: Self.aws, now: Self.awsDate)
        }
        #expect(denial == expected)
        #expect(AccessDenied.wrongRegion("eu-west-1", expected: "us-east-1") == expected)
        let unknownKey = url.replacingOccurrences(of: "=AKIAIOSFODNN7EXAMPLE%2F", with: "=AKIAOTHEREXAMPLE%2F")
        let first = #expect(throws: AccessDenied.self) {
            try Self.verify(unknownKey, credentials: Self.aws, now: Self.awsDate)
        }
        #expect(first == expected)
    }

    @Test("a mismatch explains itself with the canonical request, never the signature")
    func mismatchDetails() throws {
        let url = Self.boto3URL.replacingOccurrences(of: "/h.txt", with: "/i.txt")
        let denial = #expect(throws: AccessDenied.self) {
            try Self.verify(url, credentials: Self.demo, now: Self.boto3Date)
        }
        let details = try #require(denial?.details)
        #expect(details.map(\.name) == ["AWSAccessKeyId", "StringToSign", "CanonicalRequest"])
        #expect(details[2].value.hasPrefix("GET\n/demo/attachments/6bf5be05-bfe6-461b-8f40-e943b453fbf6/i.txt\n"))
        #expect(details[2].value.hasSuffix("\nhost:127.0.0.1:18080\n\nhost\nUNSIGNED-PAYLOAD"))
        #expect(!details.contains { $0.value.contains("b877124f") })
    }

    @Test("a mismatch redacts token values, and hostile credential fields are echoed short and printable")
    func redaction() throws {
        let url =
            Self.boto3URL.replacingOccurrences(of: "b877124f", with: "b877124e")
            + "&X-Amz-Security-Token=SESSIONSECRET&fat=FATSECRET"
        let denial = #expect(throws: AccessDenied.self) {
            try Self.verify(url, credentials: Self.demo, now: Self.boto3Date)
        }
        let canonical = try #require(denial?.details.last?.value)
        #expect(canonical.contains("X-Amz-Security-Token=REDACTED"))
        #expect(canonical.contains("fat=REDACTED"))
        #expect(!canonical.contains("SECRET"))

        let hostile = Self.boto3URL.replacingOccurrences(
            of: "%2F20261121%2Fus%2F",
            with: "%2F%01" + String(repeating: "A", count: 3000) + "%2Fus%2F"
        )
        let echoed = #expect(throws: AccessDenied.self) {
            try Self.verify(hostile, credentials: Self.demo, now: Self.boto3Date)
        }
        let message = try #require(echoed?.message)
        // The control character counts towards the 32 characters echoed, then is dropped.
        #expect(message.contains("'" + String(repeating: "A", count: 31) + "'"))
        #expect(message.count < 200)
        #expect(!message.contains("\u{01}"))
    }

    @Test("HEAD on a GET URL, another host, and a date far ahead of the clock are refused")
    func otherRules() {
        #expect(throws: AccessDenied.self) {
            try Self.verify(Self.boto3URL, credentials: Self.demo, now: Self.boto3Date, method: "HEAD")
        }
        #expect(throws: AccessDenied.self) {
            try Self.verify(
                Self.boto3URL.replacingOccurrences(of: ":18080", with: ":18081"),
                credentials: Self.demo,
                now: Self.boto3Date
            )
        }
        let early = #expect(throws: AccessDenied.self) {
            try Self.verify(Self.boto3URL, credentials: Self.demo, now: Self.boto3Date - SigV4.allowedSkew - 1)
        }
        #expect(early?.message == "Request is not yet valid")
    }

    @Test("appended transform and fat parameters are allowed only when declared appendable")
    func appendable() throws {
        let url = Self.boto3URL + "&w=150&h=*&resize=clip&fat=a%2Bb%3D"
        let names: Set<String> = ["w", "h", "resize", "crop", "ro", "fat"]
        try Self.verify(url, credentials: Self.demo, now: Self.boto3Date, appendable: names)
        #expect(throws: AccessDenied.self) { try Self.verify(url, credentials: Self.demo, now: Self.boto3Date) }
    }

    @Test(
        "X-Amz-Date formats round trip, impossible dates are refused",
        arguments: [
            ("19700101T000000Z", Int64(0)), ("20130524T000000Z", 1_369_353_600), ("20000229T235959Z", 951_868_799),
            ("20261121T134725Z", 1_795_268_845),
        ]
    )
    func amzDate(_ text: String, _ unix: Int64) {
        #expect(AmzDate.parseCompact(text) == unix)
        #expect(AmzDate.compact(unix) == text)
    }

    @Test(
        "malformed X-Amz-Date values",
        arguments: [
            "20130229T000000Z", "20130524T240000Z", "20130524000000Z", "2013-05-24T00:00:00Z", "20130524T00000xZ", "",
        ]
    )
    func badAmzDate(_ text: String) {
        #expect(AmzDate.parseCompact(text) == nil)
    }

    @Test("RFC 3986 encoding keeps only unreserved characters")
    func percentEncoding() {
        #expect(PercentEncoding.encode("a b+c/d=é~-._") == "a%20b%2Bc%2Fd%3D%C3%A9~-._")
        #expect(PercentEncoding.encodePath("demo/a b/ü.png") == "demo/a%20b/%C3%BC.png")
    }
}
