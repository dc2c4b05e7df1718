import Foundation
import MockCDNCore
import Testing

@testable import MockCDNServer

/// What a POST policy upload answers and stores besides the policy check (which `PostPolicyTests` covers):
/// the redirect S3 builds, which bodies are forms, and the form fields kept as an object's headers.
@Suite("POST policy uploads")
struct FormUploadTests {
    static let etag = #""9b2cf535f27731c974343645a3985328""#

    /// (success_action_redirect as sent, the Location S3 answers, or nil when it ignores the field).
    static let redirects: [(String, String?)] = [
        (
            "https://app.example/done",
            "https://app.example/done?bucket=demo&key=uploads%2Fa%20b.txt&etag=%229b2cf535f27731c974343645a3985328%22"
        ),
        (
            "http://localhost:8081/done.html?from=form#top",
            "http://localhost:8081/done.html?from=form&bucket=demo&key=uploads%2Fa%20b.txt"
                + "&etag=%229b2cf535f27731c974343645a3985328%22#top"
        ),
        (
            "https://app.example/done?",
            "https://app.example/done?bucket=demo&key=uploads%2Fa%20b.txt&etag=%229b2cf535f27731c974343645a3985328%22"
        ),
        ("/relative/done", nil),
        ("javascript:alert(1)", nil),
        ("not a url", nil),
        ("", nil),
    ]

    @Test(
        "success_action_redirect gains bucket, key and etag; a value that is no absolute URL is ignored",
        arguments: redirects
    )
    func redirect(url: String, expected: String?) {
        #expect(FormUpload.redirect(url, bucket: "demo", key: "uploads/a b.txt", etag: Self.etag) == expected)
    }

    @Test("fields are read without regard to case, the first of a name counting")
    func fieldValues() {
        let fields = [
            (name: "Success_Action_Status", value: "201"), (name: "success_action_status", value: "200"),
        ]
        #expect(FormUpload.value("success_action_status", in: fields) == "201")
        #expect(FormUpload.value("key", in: fields) == nil)
    }

    @Test("form fields are stored as a PUT's headers are: metadata and content headers, in lower case")
    func storedFields() throws {
        let extras = try ObjectHeaders.extras(fields: [
            (name: "X-Amz-Meta-Origin", value: "browser"), (name: "Cache-Control", value: "no-cache"),
            (name: "Content-Type", value: "text/plain"), (name: "key", value: "uploads/a.txt"),
            (name: "x-amz-meta-bad name", value: "not a header name"), (name: "policy", value: "e30="),
        ])
        #expect(extras == ["header:x-amz-meta-origin": "browser", "header:cache-control": "no-cache"])
    }

    @Test("more than 2 KB of metadata in form fields is MetadataTooLarge")
    func metadataBound() {
        #expect(throws: S3Error.self) {
            try ObjectHeaders.extras(fields: [(name: "x-amz-meta-big", value: String(repeating: "v", count: 2046))])
        }
    }
}
