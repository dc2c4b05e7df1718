import Foundation
import MockCDNCore
import Testing

/// Verifying requests signed in the `Authorization` header, on AWS's documented examples ("Signature
/// Calculations for the Authorization Header: Transferring Payload in a Single Chunk"), and each rule S3
/// refuses such a request by, with S3's code.
@Suite("SigV4 Authorization header verification")
struct SigV4HeaderVerificationTests {
    static let date = SigV4AuthorizationTests.date
    static let emptyHash = SigV4.emptyPayloadHash

    /// AWS's GET example: `test.txt` with `Range: bytes=0-9`.
    static let getHeaders: [String: String] = [
        "host": SigV4AuthorizationTests.host, "range": "bytes=0-9", "x-amz-content-sha256": emptyHash,
        "x-amz-date": "20130524T000000Z",
    ]
    static let getAuthorization =
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
        + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
        + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"

    static func verify(
        _ authorization: String = getAuthorization,
        method: String = "GET",
        path: String = "/test.txt",
        query: [(name: String, value: String)] = [],
        headers: [String: String] = getHeaders,
        credentials: SigV4Credentials = SigV4Tests.aws,
        now: Int64 = date
    ) throws(AccessDenied) -> SigV4.SignedRequest {
        try SigV4.verifyAuthorization(
            authorization,
            method: method,
            path: path,
            query: query,
            header: { headers[$0] },
            credentials: credentials,
            now: now
        )
    }

    static func refusal(_ body: () throws(AccessDenied) -> SigV4.SignedRequest) -> AccessDenied? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("AWS's GET example verifies, and holds for 15 minutes either side of its date")
    func getObject() throws {
        let signed = try Self.verify()
        #expect(signed.payloadHash == Self.emptyHash)
        #expect(signed.validity.holds(at: Self.date - 900) && signed.validity.holds(at: Self.date + 900))
        #expect(!signed.validity.holds(at: Self.date + 901))
        // The separators may carry spaces, as some clients write them.
        _ = try Self.verify(Self.getAuthorization.replacingOccurrences(of: ",", with: ", "))
    }

    @Test("AWS's PUT example (a signed payload hash, a path with `$`) and listing example (a sorted query)")
    func putAndList() throws {
        let payloadHash = "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"
        let put = try Self.verify(
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"
                + "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd",
            method: "PUT",
            path: "/test$file.text",
            headers: [
                "date": "Fri, 24 May 2013 00:00:00 GMT", "host": SigV4AuthorizationTests.host,
                "x-amz-content-sha256": payloadHash, "x-amz-date": "20130524T000000Z",
                "x-amz-storage-class": "REDUCED_REDUNDANCY",
            ]
        )
        #expect(put.payloadHash == payloadHash)
        _ = try Self.verify(
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
                + "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
            path: "/",
            query: [("max-keys", "2"), ("prefix", "J")],
            headers: Self.getHeaders.filter { $0.key != "range" }
        )
    }

    @Test(
        "each refusal has S3's code and status",
        arguments: [
            ("a wrong secret", "SignatureDoesNotMatch", false),
            ("a header changed after signing", "SignatureDoesNotMatch", false),
            ("another method", "SignatureDoesNotMatch", false),
            ("a clock 16 minutes ahead", "RequestTimeTooSkewed", false),
            ("a clock 16 minutes behind", "RequestTimeTooSkewed", false),
            ("an unknown access key", "InvalidAccessKeyId", false),
            ("another region", "AuthorizationHeaderMalformed", true),
            ("no x-amz-content-sha256", "InvalidRequest", true),
            ("no x-amz-date", "AccessDenied", false),
            ("a repeated field", "AuthorizationHeaderMalformed", true),
            ("SignedHeaders without host", "AuthorizationHeaderMalformed", true),
            ("a short signature", "SignatureDoesNotMatch", false),
        ]
    )
    func refusals(rule: String, code: String, malformed: Bool) throws {
        var headers = Self.getHeaders
        var authorization = Self.getAuthorization
        var credentials = SigV4Tests.aws
        var now = Self.date
        var method = "GET"
        switch rule {
        case "a wrong secret":
            credentials = SigV4Credentials(
                accessKeyID: credentials.accessKeyID,
                secretAccessKey: "wrong",
                region: "us-east-1"
            )
        case "a header changed after signing": headers["range"] = "bytes=0-99"
        case "another method": method = "HEAD"
        case "a clock 16 minutes ahead": now += 960
        case "a clock 16 minutes behind": now -= 960
        case "an unknown access key":
            credentials = SigV4Credentials(accessKeyID: "AKIDOTHER", secretAccessKey: "s", region: "us-east-1")
        case "another region":
            credentials = SigV4Credentials(
                accessKeyID: credentials.accessKeyID,
                secretAccessKey: credentials.secretAccessKey,
                region: "eu-west-1"
            )
        case "no x-amz-content-sha256": headers["x-amz-content-sha256"] = nil
        case "no x-amz-date": headers["x-amz-date"] = nil
        case "a repeated field": authorization += ",Signature=" + String(repeating: "0", count: 64)
        case "SignedHeaders without host":
            authorization = authorization.replacingOccurrences(of: "SignedHeaders=host;", with: "SignedHeaders=")
        case "a short signature": authorization = String(authorization.dropLast(2))
        default: Issue.record("no such rule \(rule)")
        }
        let denial = try #require(
            Self.refusal { () throws(AccessDenied) in
                try Self.verify(authorization, method: method, headers: headers, credentials: credentials, now: now)
            }
        )
        #expect(denial.code == code, "\(rule): \(denial.message)")
        #expect((denial.kind == .malformed) == malformed, "\(rule)")
        if code == "AuthorizationHeaderMalformed", rule == "another region" {
            #expect(denial.details == [.init("Region", "eu-west-1")])
        }
        if code == "SignatureDoesNotMatch", rule != "a short signature" {
            #expect(denial.details.map(\.name) == ["AWSAccessKeyId", "StringToSign", "CanonicalRequest"])
        }
    }

    @Test("a mismatch shows the canonical request with a signed session token and cookie redacted")
    func mismatchRedacts() throws {
        var headers = Self.getHeaders
        headers["x-amz-security-token"] = "session-token-secret"
        headers["cookie"] = "session=cookie-secret"
        let authorization = Self.getAuthorization.replacingOccurrences(
            of: "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date",
            with: "SignedHeaders=cookie;host;range;x-amz-content-sha256;x-amz-date;x-amz-security-token"
        )
        let denial = try #require(
            Self.refusal { () throws(AccessDenied) in try Self.verify(authorization, headers: headers) }
        )
        #expect(denial.code == "SignatureDoesNotMatch")
        let shown = try #require(denial.details.first { $0.name == "CanonicalRequest" }?.value)
        #expect(shown.contains("x-amz-security-token:REDACTED") && shown.contains("cookie:REDACTED"), "\(shown)")
        #expect(!denial.details.contains { $0.value.contains("secret") })
    }

    @Test("a presigned query or an Authorization of another kind is not a SigV4 header")
    func detection() {
        #expect(SigV4.isHeaderSigned(Self.getAuthorization))
        #expect(!SigV4.isHeaderSigned("AWS AKIAIOSFODNN7EXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg="))
        #expect(!SigV4.isHeaderSigned("Bearer x") && !SigV4.isHeaderSigned(nil))
    }
}
