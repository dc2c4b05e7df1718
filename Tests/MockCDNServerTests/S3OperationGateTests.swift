import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore
import Testing

@testable import MockCDNServer

@Suite("S3's dispatch: every operation served or refused, none taken for the plain request beside it")
struct S3OperationGateTests {
    static let apps = try! AppRegistry([.demo], reserving: [])

    /// The refusal's status and code, or nil when a route may serve the request.
    static func refusal(_ method: HTTPRequest.Method, _ target: String, headers: HTTPFields = [:]) -> String? {
        var head = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1", path: target)
        head.headerFields = headers
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        guard let kind = S3OperationGate.target(of: request.uri.path, reserved: routePrefixes, apps: Self.apps) else {
            return nil
        }
        return S3OperationGate.refusal(request, target: kind, query: QueryItems(request.uri.query))
            .map { "\($0.status.code) \($0.code)" }
    }

    static let signed: HTTPFields = [
        .authorization: "AWS4-HMAC-SHA256 Credential=demo-key/20261128/us-east-1/s3/aws4_request, "
            + "SignedHeaders=host, Signature=00"
    ]

    @Test(
        "sub-resources MockCDN does not serve are 501 before any route, whatever the credential",
        arguments: [
            (HTTPRequest.Method.put, "/demo/k?retention"), (.put, "/demo/k?legal-hold"), (.get, "/demo/k?attributes"),
            (.head, "/demo/k?attributes"), (.post, "/demo/k?restore"),
            (.post, "/demo/k?select&select-type=2"), (.put, "/demo/k?renameObject"), (.put, "/demo?cors"),
            (.put, "/demo?versioning"), (.put, "/demo?policy"), (.put, "/demo?lifecycle"), (.get, "/demo?acl"),
            (.delete, "/demo?cors"), (.get, "/demo?versions"),
            (.get, "/demo?session"), (.post, "/WriteGetObjectResponse"),
        ]
    )
    func notImplemented(method: HTTPRequest.Method, target: String) {
        #expect(Self.refusal(method, target) == "501 NotImplemented", "\(method) \(target)")
    }

    @Test(
        "a sub-resource S3 does not take with that method there is 405",
        arguments: [
            (HTTPRequest.Method.delete, "/demo?location"), (.post, "/demo?acl"), (.get, "/demo/k?uploads"),
            (.delete, "/demo/k?acl"), (.put, "/demo?delete"),
        ]
    )
    func methodNotAllowed(method: HTTPRequest.Method, target: String) {
        #expect(Self.refusal(method, target) == "405 MethodNotAllowed", "\(method) \(target)")
    }

    @Test(
        "the operations served pass to their routes",
        arguments: [
            (HTTPRequest.Method.get, "/demo/k"), (.head, "/demo/k"), (.put, "/demo/k"), (.delete, "/demo/k"),
            (.get, "/demo/k?uploadId=u"), (.put, "/demo/k?partNumber=1&uploadId=u"), (.post, "/demo/k?uploads"),
            (.post, "/demo/k?uploadId=u"), (.delete, "/demo/k?uploadId=u"), (.head, "/demo"), (.get, "/demo"),
            (.get, "/demo?list-type=2&prefix="), (.get, "/demo?location"), (.get, "/demo?uploads"),
            (.get, "/demo?notification"), (.put, "/demo?notification"), (.post, "/demo?delete"), (.post, "/demo"),
            (.get, "/demo/k?versionId=null"), (.get, "/demo/k?w=100&h=50&fat=x"), (.get, "/demo/k?1234"),
            (.get, "/"), (.get, "/_mockcdn/health?x"), (.post, "/v1/apps/demo/fat"), (.put, "/demo"),
            (.delete, "/demo"), (.put, "/demo/k?acl"), (.get, "/demo/k?acl"), (.head, "/demo/k?acl"),
            (.put, "/demo/k?tagging"), (.get, "/demo/k?tagging"), (.delete, "/demo/k?tagging"),
            (.get, "/demo/k?tagging&versionId=null"),
        ]
    )
    func served(method: HTTPRequest.Method, target: String) {
        #expect(Self.refusal(method, target) == nil, "\(method) \(target)")
    }

    @Test("a parameter without a value that is no sub-resource is 501 on a write and on a signed read")
    func unknownSubresource() {
        #expect(Self.refusal(.put, "/demo/k?newThing") == "501 NotImplemented")
        #expect(Self.refusal(.post, "/demo?newThing") == "501 NotImplemented")
        #expect(Self.refusal(.get, "/demo/k?newThing", headers: Self.signed) == "501 NotImplemented")
        // A CDN read keeps it (a cache buster); a value makes it no sub-resource.
        #expect(Self.refusal(.get, "/demo/k?newThing") == nil)
        #expect(Self.refusal(.put, "/demo/k?x-id=PutObject") == nil)
    }

    @Test("a request signed for S3 Express One Zone (`s3express`) is 501: ListDirectoryBuckets is no ListBuckets")
    func directoryBuckets() {
        let express: HTTPFields = [
            .authorization: "AWS4-HMAC-SHA256 Credential=demo-key/20261128/us-east-1/s3express/aws4_request, "
                + "SignedHeaders=host, Signature=00"
        ]
        #expect(Self.refusal(.get, "/", headers: express) == "501 NotImplemented")
        #expect(Self.refusal(.get, "/demo/k", headers: express) == "501 NotImplemented")
        #expect(Self.refusal(.get, "/", headers: Self.signed) == nil)
    }

    @Test("a version id other than null is 400 InvalidArgument: MockCDN keeps no versions")
    func versions() {
        #expect(Self.refusal(.get, "/demo/k?versionId=3HL4kqtJlcpXroDTDmJ%2Bdm") == "400 InvalidArgument")
        #expect(Self.refusal(.delete, "/demo/k?versionId=abc") == "400 InvalidArgument")
    }

    @Test("docs/s3-api.md lists the operations not served, as the table has them")
    func docs() throws {
        let text = try String(contentsOf: Fixture.url("../docs/s3-api.md").standardizedFileURL, encoding: .utf8)
        let markers = S3Operation.notServedMarkers
        let start = try #require(text.range(of: markers.start + "\n"), "docs/s3-api.md has no start marker")
        let end = try #require(text.range(of: markers.end, range: start.upperBound..<text.endIndex))
        #expect(
            String(text[start.upperBound..<end.lowerBound]) == S3Operation.notServedTable,
            "docs/s3-api.md's 'What is not served' differs from S3Operation.all"
        )
    }

    @Test("every row is one request shape, and the sub-resources name no parameter a served read or write takes")
    func table() {
        let shapes = S3Operation.all.map {
            "\($0.method.rawValue) \($0.target) \($0.subresource ?? "") \($0.service)"
        }
        #expect(Set(shapes).count == shapes.count)
        for parameter in ["uploadId", "partNumber", "versionId", "prefix", "delimiter", "marker", "max-keys", "x-id"] {
            #expect(!S3Operation.subresources.contains(parameter), "\(parameter)")
        }
    }
}
