import Foundation
import Testing

@testable import MockCDNCore

/// SigV2 header authentication (`Authorization: AWS key:signature`) against AWS's own examples, request by
/// request: MockCDN's string to sign must be the page's, byte for byte, its signature the page's, and the
/// request must verify at its own `Date`.
///
/// Source: "Signing and authenticating REST requests" (Amazon S3, Signature Version 2), section
/// "Authentication examples", https://docs.aws.amazon.com/AmazonS3/latest/API/RESTAuthentication.html, as
/// awsdocs/amazon-s3-developer-guide `doc_source/RESTAuthentication.md` had it at commit
/// e799f25f4fcde8d5b0332d0c4fe631090f4dd466. The page now names the bucket `awsexamplebucket1` but kept the
/// signatures, which are over `johnsmith`; so the bucket here is `johnsmith`, and the resource's first segment,
/// as in MockCDN (bucket = app id): the page's virtual-hosted requests are written path-style, the form
/// MockCDN's server hands to Core (it moves a virtual host's bucket into the path first).
@Suite("SigV2 header authentication: AWS's published examples")
struct SigV2HeaderTests {
    static let awsKey = "AKIAIOSFODNN7EXAMPLE"
    static let awsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

    /// One of the page's requests, its `Authorization` header and its `StringToSign`, verbatim.
    struct Example: Sendable, CustomTestStringConvertible {
        let name: String
        var method: String
        /// The path as sent, path-style.
        var path: String
        var query: [(name: String, value: String)]
        var headers: [(name: String, value: String)]
        var signature: String
        let stringToSign: String
        /// The request's `Date` as a Unix time: the clock it verifies at.
        let now: Int64
        var testDescription: String { self.name }

        var authorization: String { "AWS \(SigV2HeaderTests.awsKey):\(self.signature)" }
    }

    static let examples: [Example] = [
        .init(
            name: "Object GET",
            method: "GET",
            path: "/johnsmith/photos/puppy.jpg",
            query: [],
            headers: [("Host", "johnsmith.s3.amazonaws.com"), ("Date", "Tue, 27 Mar 2007 19:36:42 +0000")],
            signature: "bWq2s1WEIj+Ydj0vQ697zp+IXMU=",
            stringToSign: "GET\n\n\nTue, 27 Mar 2007 19:36:42 +0000\n/johnsmith/photos/puppy.jpg",
            now: 1_175_024_202
        ),
        .init(
            name: "Object PUT",
            method: "PUT",
            path: "/johnsmith/photos/puppy.jpg",
            query: [],
            headers: [
                ("Content-Type", "image/jpeg"), ("Content-Length", "94328"), ("Host", "johnsmith.s3.amazonaws.com"),
                ("Date", "Tue, 27 Mar 2007 21:15:45 +0000"),
            ],
            signature: "MyyxeRY7whkBe+bq8fHCL/2kKUg=",
            stringToSign: "PUT\n\nimage/jpeg\nTue, 27 Mar 2007 21:15:45 +0000\n/johnsmith/photos/puppy.jpg",
            now: 1_175_030_145
        ),
        .init(
            name: "List",
            method: "GET",
            path: "/johnsmith/",
            query: [("prefix", "photos"), ("max-keys", "50"), ("marker", "puppy")],
            headers: [
                ("User-Agent", "Mozilla/5.0"), ("Host", "johnsmith.s3.amazonaws.com"),
                ("Date", "Tue, 27 Mar 2007 19:42:41 +0000"),
            ],
            signature: "htDYFYduRNen8P9ZfE/s9SuKy0U=",
            stringToSign: "GET\n\n\nTue, 27 Mar 2007 19:42:41 +0000\n/johnsmith/",
            now: 1_175_024_561
        ),
        .init(
            name: "Fetch (?acl)",
            method: "GET",
            path: "/johnsmith/",
            query: [("acl", "")],
            headers: [("Host", "johnsmith.s3.amazonaws.com"), ("Date", "Tue, 27 Mar 2007 19:44:46 +0000")],
            signature: "c2WLPFtWHVgbEmeEG93a4cG37dM=",
            stringToSign: "GET\n\n\nTue, 27 Mar 2007 19:44:46 +0000\n/johnsmith/?acl",
            now: 1_175_024_686
        ),
        .init(
            name: "Upload with metadata headers",
            method: "PUT",
            path: "/static.johnsmith.net/db-backup.dat.gz",
            query: [],
            headers: [
                ("User-Agent", "curl/7.15.5"), ("Host", "static.johnsmith.net:8080"),
                ("Date", "Tue, 27 Mar 2007 21:06:08 +0000"), ("x-amz-acl", "public-read"),
                ("content-type", "application/x-download"), ("Content-MD5", "4gJE4saaMU4BqNR0kLY+lw=="),
                ("X-Amz-Meta-ReviewedBy", "joe@johnsmith.net"), ("X-Amz-Meta-ReviewedBy", "jane@johnsmith.net"),
                ("X-Amz-Meta-FileChecksum", "0x02661779"), ("X-Amz-Meta-ChecksumAlgorithm", "crc32"),
                ("Content-Disposition", "attachment; filename=database.dat"), ("Content-Encoding", "gzip"),
                ("Content-Length", "5913339"),
            ],
            signature: "ilyl83RwaSoYIEdixDQcA4OnAnc=",
            stringToSign: "PUT\n4gJE4saaMU4BqNR0kLY+lw==\napplication/x-download\nTue, 27 Mar 2007 21:06:08 +0000\n"
                + "x-amz-acl:public-read\nx-amz-meta-checksumalgorithm:crc32\nx-amz-meta-filechecksum:0x02661779\n"
                + "x-amz-meta-reviewedby:joe@johnsmith.net,jane@johnsmith.net\n/static.johnsmith.net/db-backup.dat.gz",
            now: 1_175_029_568
        ),
        .init(
            name: "List all my buckets",
            method: "GET",
            path: "/",
            query: [],
            headers: [("Host", "s3.amazonaws.com"), ("Date", "Wed, 28 Mar 2007 01:29:59 +0000")],
            signature: "qGdzdERIC03wnaRNKh6OqZehG9s=",
            stringToSign: "GET\n\n\nWed, 28 Mar 2007 01:29:59 +0000\n/",
            now: 1_175_045_399
        ),
        .init(
            name: "Unicode keys (percent-encoding signed as sent)",
            method: "GET",
            path: "/dictionary/fran%C3%A7ais/pr%c3%a9f%c3%a8re",
            query: [],
            headers: [("Host", "s3.amazonaws.com"), ("Date", "Wed, 28 Mar 2007 01:49:49 +0000")],
            signature: "DNEZGsoieTZ92F3bUfSPQcbGmlM=",
            stringToSign: "GET\n\n\nWed, 28 Mar 2007 01:49:49 +0000\n/dictionary/fran%C3%A7ais/pr%c3%a9f%c3%a8re",
            now: 1_175_046_589
        ),
    ]

    /// The page's Delete example with `x-amz-date`. Its published pair (`lx3byBScXR6KzyMaifNkardMwNk=` over
    /// `DELETE\n\n\nTue, 27 Mar 2007 21:20:26 +0000\n/johnsmith/photos/puppy.jpg`) breaks the rule the same page
    /// states under "Time stamp requirement" (with `x-amz-date`, the date line is empty and `x-amz-date` is
    /// signed among the `x-amz-*` headers). MockCDN follows the rule, as boto 2, Ceph RGW (ceph/ceph#15467) and
    /// pithos (exoscale/pithos#47) do, which gives the signature below.
    static let delete = Example(
        name: "Delete with x-amz-date",
        method: "DELETE",
        path: "/johnsmith/photos/puppy.jpg",
        query: [],
        headers: [
            ("User-Agent", "dotnet"), ("Host", "s3.amazonaws.com"), ("Date", "Tue, 27 Mar 2007 21:20:27 +0000"),
            ("x-amz-date", "Tue, 27 Mar 2007 21:20:26 +0000"),
        ],
        signature: "R4dJ53KECjStyBO5iTBJZ4XVOaI=",
        stringToSign: "DELETE\n\n\n\nx-amz-date:Tue, 27 Mar 2007 21:20:26 +0000\n/johnsmith/photos/puppy.jpg",
        now: 1_175_030_426
    )

    static func verify(_ example: Example, now: Int64? = nil) throws(AccessDenied) {
        try SigV2.verifyAuthorization(
            example.authorization,
            method: example.method,
            path: example.path,
            query: example.query,
            headers: example.headers,
            accessKeyID: Self.awsKey,
            secretAccessKey: Self.awsSecret,
            now: now ?? example.now
        )
    }

    static func stringToSign(_ example: Example) -> String {
        SigV2.headerStringToSign(
            method: example.method,
            path: example.path,
            query: example.query,
            headers: example.headers
        )
    }

    // MARK: - The examples

    @Test(
        "MockCDN's string to sign is the page's, its signature the page's, and the request verifies",
        arguments: examples + [delete]
    )
    func example(_ example: Example) throws {
        #expect(Self.stringToSign(example) == example.stringToSign)
        let signature = SigV2.signature(example.stringToSign, secretAccessKey: Self.awsSecret)
        #expect(Base64.encode(signature, .standard) == example.signature)
        try Self.verify(example)
    }

    @Test("the Delete example's published signature, over the date line the page's own rule leaves empty, is refused")
    func deletePublishedSignature() throws {
        var published = Self.delete
        published.signature = "lx3byBScXR6KzyMaifNkardMwNk="
        let denial = #expect(throws: AccessDenied.self) { try Self.verify(published) }
        #expect(denial?.code == "SignatureDoesNotMatch")
        #expect(denial?.details.last?.value == Self.delete.stringToSign)
        // The page's pair is a true HMAC-SHA1: only the string it was made over differs.
        let pageString = "DELETE\n\n\nTue, 27 Mar 2007 21:20:26 +0000\n/johnsmith/photos/puppy.jpg"
        #expect(
            Base64.encode(SigV2.signature(pageString, secretAccessKey: Self.awsSecret), .standard)
                == "lx3byBScXR6KzyMaifNkardMwNk="
        )
    }

    // MARK: - Changed bytes

    /// The request with each signed part changed in turn: one byte of the signature, the resource, the signed
    /// date and each signed header's value; the method; each signed sub-resource left out.
    static func changes(of example: Example) -> [(what: String, request: Example)] {
        func changed(_ text: String) -> String {
            String(text.dropLast()) + (text.last == "x" ? "y" : "x")
        }
        /// The seconds' last digit moved on, so the date still parses and lies within the allowed skew.
        func changedDate(_ text: String) -> String {
            text.split(separator: " ", omittingEmptySubsequences: false).map { field in
                guard field.filter({ $0 == ":" }).count == 2, let last = field.last?.wholeNumberValue else {
                    return String(field)
                }
                return String(field.dropLast()) + String((last + 1) % 10)
            }.joined(separator: " ")
        }
        var changes: [(what: String, request: Example)] = []
        func add(_ what: String, _ change: (inout Example) -> Void) {
            var request = example
            change(&request)
            changes.append((what, request))
        }
        add("signature") { $0.signature = ($0.signature.first == "A" ? "B" : "A") + $0.signature.dropFirst() }
        add("method") { $0.method = $0.method == "GET" ? "HEAD" : "GET" }
        add("resource") { $0.path = changed($0.path) }
        let signedDate = example.headers.contains { $0.name.lowercased() == "x-amz-date" } ? "x-amz-date" : "date"
        for (index, header) in example.headers.enumerated() {
            let name = header.name.lowercased()
            if name == signedDate {
                add("header \(header.name)") { $0.headers[index].value = changedDate(header.value) }
            } else if ["content-md5", "content-type"].contains(name) || name.hasPrefix("x-amz-") {
                add("header \(header.name)") { $0.headers[index].value = changed(header.value) }
            }
        }
        for index in example.query.indices where SigV2.signedSubresources.contains(example.query[index].name) {
            add("sub-resource \(example.query[index].name)") { $0.query.remove(at: index) }
        }
        return changes
    }

    @Test(
        "a signed part changed (by one byte, or another method, or a sub-resource left out) is a mismatch",
        arguments: examples + [delete]
    )
    func changedPart(_ example: Example) {
        let changes = Self.changes(of: example)
        #expect(changes.count >= 4)
        for (what, request) in changes {
            let denial = #expect(throws: AccessDenied.self, "\(what)") { try Self.verify(request) }
            #expect(denial?.code == "SignatureDoesNotMatch", "\(what)")
        }
    }

    @Test("what is not signed may change: other headers, other query parameters, Date beside x-amz-date")
    func unsignedParts() throws {
        var list = Self.examples[2]
        list.query = [("prefix", "videos"), ("max-keys", "1000")]
        list.headers[0].value = "boto3/1.43.11"
        try Self.verify(list)
        var upload = Self.examples[4]
        upload.headers.removeAll { ["Content-Disposition", "Content-Encoding"].contains($0.name) }
        upload.headers.append(("Content-Length", "1"))
        try Self.verify(upload)
        var delete = Self.delete
        delete.headers[2].value = "Wed, 28 Mar 2007 09:00:00 GMT"
        try Self.verify(delete)
    }

    @Test("the page's dates, with their +0000 zone, are the request time: 15 minutes either way, not a second more")
    func skew() {
        let get = Self.examples[0]
        for now in [get.now - 900, get.now + 900] {
            #expect(throws: Never.self) { try Self.verify(get, now: now) }
        }
        for now in [get.now - 901, get.now + 901] {
            let denial = #expect(throws: AccessDenied.self) { try Self.verify(get, now: now) }
            #expect(denial?.code == "RequestTimeTooSkewed")
            #expect(denial?.details.first?.name == "RequestTime")
        }
    }

    @Test(
        "a date far from the clock is judged before the signature: RequestTimeTooSkewed, the date echoed as sent",
        arguments: ["Tue, 07 Jul 2010 21:53:04 GMT", "Tue, 07 Jul 9999 21:53:04 GMT"]
    )
    func skewBeforeSignature(date: String) {
        // ceph's s3-tests: botocore signs its own `Date` and an `x-amz-date` the test set; the signature is not
        // what MockCDN computes, and the date decides the answer.
        var request = Self.examples[0]
        request.headers.append(("x-amz-date", date))
        request.signature = "bWq2s1WEIj+Ydj0vQ697zp+IXMU="
        let denial = #expect(throws: AccessDenied.self) { try Self.verify(request, now: request.now) }
        #expect(denial?.code == "RequestTimeTooSkewed")
        #expect(denial?.details.map(\.name) == ["RequestTime", "ServerTime", "MaxAllowedSkewMilliseconds"])
        #expect(denial?.details.first?.value == date)
        #expect(denial?.details.last?.value == "900000")
        // Within the skew, the same request is judged by its signature.
        let mismatch = #expect(throws: AccessDenied.self) {
            try Self.verify(request, now: Int64(HTTPDate.parse(date)!.timeIntervalSince1970))
        }
        #expect(mismatch?.code == "SignatureDoesNotMatch")
    }

    @Test(
        "no date, one that cannot be read, and one before 1970 are AccessDenied, as S3 answers them",
        arguments: ["Tue, 07 Jul 1950 21:53:04 GMT", "Bad Date", ""]
    )
    func noUsableDate(date: String) {
        var request = Self.examples[0]
        request.headers.removeAll { $0.name == "Date" }
        request.headers.append(("x-amz-date", date))
        let denial = #expect(throws: AccessDenied.self) { try Self.verify(request) }
        #expect(denial?.code == "AccessDenied")
        #expect(denial?.message == "AWS authentication requires a valid Date or x-amz-date header")
    }
}
