import MockCDNCore
import Testing

/// Signing in the `Authorization` header, as the S3 store signs its requests: AWS's documented examples
/// ("Signature Calculations for the Authorization Header: Transferring Payload in a Single Chunk").
@Suite("SigV4 Authorization header")
struct SigV4AuthorizationTests {
    static let date = AmzDate.parseCompact("20130524T000000Z")!
    static let host = "examplebucket.s3.amazonaws.com"
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    static func authorization(_ headers: [(name: String, value: String)]) -> String? {
        headers.first { $0.name == "authorization" }?.value
    }

    @Test("GET an object with a Range header")
    func getObject() {
        let headers = SigV4.authorizationHeaders(
            method: "GET",
            host: Self.host,
            path: "/test.txt",
            headers: ["range": "bytes=0-9"],
            payloadHash: Self.emptyHash,
            credentials: SigV4Tests.aws,
            date: Self.date
        )
        #expect(
            Self.authorization(headers)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        )
        #expect(headers.first { $0.name == "x-amz-date" }?.value == "20130524T000000Z")
        #expect(headers.first { $0.name == "x-amz-content-sha256" }?.value == Self.emptyHash)
    }

    @Test("PUT an object: a signed payload hash and a path with a character to encode")
    func putObject() {
        let payload = "Welcome to Amazon S3."
        let hash = Digest.sha256(payload).hexString
        #expect(hash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let headers = SigV4.authorizationHeaders(
            method: "PUT",
            host: Self.host,
            path: "/test$file.text",
            headers: ["date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"],
            payloadHash: hash,
            credentials: SigV4Tests.aws,
            date: Self.date
        )
        #expect(
            Self.authorization(headers)?.hasSuffix(
                "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"
                    + "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"
            ) == true
        )
    }

    @Test("GET a bucket listing: query items sorted and encoded")
    func listObjects() {
        let headers = SigV4.authorizationHeaders(
            method: "GET",
            host: Self.host,
            path: "/",
            query: [("prefix", "J"), ("max-keys", "2")],
            payloadHash: Self.emptyHash,
            credentials: SigV4Tests.aws,
            date: Self.date
        )
        #expect(
            Self.authorization(headers)?.hasSuffix(
                "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"
            ) == true
        )
    }

    @Test("temporary credentials sign their session token")
    func sessionToken() {
        let headers = SigV4.authorizationHeaders(
            method: "GET",
            host: Self.host,
            path: "/test.txt",
            payloadHash: SigV4.unsignedPayload,
            credentials: SigV4Tests.aws,
            sessionToken: "token/with+chars",
            date: Self.date
        )
        #expect(headers.first { $0.name == "x-amz-security-token" }?.value == "token/with+chars")
        #expect(
            Self.authorization(headers)?.contains(
                "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"
            ) == true
        )
    }
}
