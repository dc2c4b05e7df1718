import Hummingbird
import MockCDNCore
import NIOCore
import Testing

@testable import MockCDNServer

/// DeleteObjects' document as `DeleteRequest` reads it (on the thread pool, as the route does): boto3's body,
/// both namespace forms, what is a key and what is not, and every document S3 answers `MalformedXML`.
@Suite("DeleteObjects documents")
struct DeleteRequestTests {
    static func read(_ document: String) async throws -> DeleteRequest {
        try await DeleteRequest.read(ByteBuffer(string: document))
    }

    static func read(bytes: [UInt8]) async throws -> DeleteRequest {
        try await DeleteRequest.read(ByteBuffer(bytes: bytes))
    }

    @Test("boto3's body (botocore 1.43): keys decoded, in order, and Quiet")
    func boto3() async throws {
        let request = try await Self.read(
            #"<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Object><Key>photos/2024/a b&amp;c.jpg</Key>"#
                + #"</Object><Object><Key>notes/&lt;draft&gt;.txt</Key></Object><Quiet>true</Quiet></Delete>"#
        )
        #expect(request == DeleteRequest(keys: ["photos/2024/a b&c.jpg", "notes/<draft>.txt"], quiet: true))
    }

    @Test(
        "the root with S3's namespace, a prefix for it, or none",
        arguments: [
            #"<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Object><Key>k</Key></Object></Delete>"#,
            #"<s3:Delete xmlns:s3="http://s3.amazonaws.com/doc/2006-03-01/"><s3:Object><s3:Key>k</s3:Key></s3:Object>"#
                + "</s3:Delete>",
            #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n<Delete><Object><Key>k</Key></Object></Delete>",
        ]
    )
    func namespaces(document: String) async throws {
        #expect(try await Self.read(document) == DeleteRequest(keys: ["k"], quiet: false))
    }

    @Test("a key is its text exactly: a CDATA section's, spaces kept, never a commented-out object's")
    func keys() async throws {
        let request = try await Self.read(
            "<Delete><!--<Object><Key>kept</Key></Object>--><Object><Key><![CDATA[a&amp;<b>]]></Key></Object>"
                + "<Object><Key> spaced </Key><VersionId>null</VersionId></Object></Delete>"
        )
        #expect(request.keys == ["a&amp;<b>", " spaced "])
    }

    @Test(
        "Quiet is a boolean",
        arguments: [("true", true), (" TRUE ", true), ("1", true), ("false", false), ("0", false)]
    )
    func quiet(text: String, quiet: Bool) async throws {
        let request = try await Self.read("<Delete><Object><Key>k</Key></Object><Quiet>\(text)</Quiet></Delete>")
        #expect(request.quiet == quiet)
    }

    struct Document: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        var testDescription: String { self.name }

        init(_ name: String, _ text: String) {
            (self.name, self.bytes) = (name, Array(text.utf8))
        }

        init(_ name: String, bytes: [UInt8]) {
            (self.name, self.bytes) = (name, bytes)
        }
    }

    static let malformed: [Document] = [
        .init("no object", "<Delete></Delete>"),
        .init("an object without a key", "<Delete><Object><Nothing/></Object></Delete>"),
        .init("an object with two keys", "<Delete><Object><Key>a</Key><Key>b</Key></Object></Delete>"),
        .init("a Quiet that is no boolean", "<Delete><Object><Key>k</Key></Object><Quiet>yes</Quiet></Delete>"),
        .init("another root", "<Remove><Object><Key>k</Key></Object></Remove>"),
        .init("another namespace", #"<Delete xmlns="urn:other"><Object><Key>k</Key></Object></Delete>"#),
        .init("only a commented-out object", "<Delete><!--<Object><Key>k</Key></Object>--></Delete>"),
        .init(
            "a DOCTYPE and its entity",
            #"<!DOCTYPE d [<!ENTITY k "victim">]><Delete><Object><Key>&k;</Key></Object></Delete>"#
        ),
        .init("a tag left open", "<Delete><Object><Key>k</Key></Object>"),
        .init(
            "1,001 keys",
            "<Delete>" + String(repeating: "<Object><Key>k</Key></Object>", count: 1_001) + "</Delete>"
        ),
        .init(
            "10,000-deep nesting",
            "<Delete>" + String(repeating: "<Object>", count: 10_000) + "<Key>k</Key>"
                + String(repeating: "</Object>", count: 10_000) + "</Delete>"
        ),
        .init(
            "a key of x and the byte 0xFF",
            bytes: Array("<Delete><Object><Key>x".utf8) + [0xFF] + Array("</Key></Object></Delete>".utf8)
        ),
    ]

    @Test("S3's 400 MalformedXML, word for word", arguments: malformed)
    func refused(document: Document) async {
        do {
            let request = try await Self.read(bytes: document.bytes)
            Issue.record("read as \(request)")
        } catch let error as S3Error {
            #expect(error.status == .badRequest && error.code == "MalformedXML")
            #expect(
                error.message
                    == "The XML you provided was not well-formed or did not validate against our published schema"
            )
        } catch {
            Issue.record("not S3's error: \(error)")
        }
    }

    @Test("1,000 keys, each with every child S3 takes, are read")
    func thousandKeys() async throws {
        let object =
            "<Object><Key>k</Key><VersionId>v</VersionId><ETag>e</ETag><LastModifiedTime>t</LastModifiedTime>"
            + "<Size>1</Size></Object>"
        let request = try await Self.read(
            "<Delete>" + String(repeating: object, count: 1_000) + "<Quiet>true</Quiet></Delete>"
        )
        #expect(request.keys.count == 1_000 && request.quiet)
    }
}
