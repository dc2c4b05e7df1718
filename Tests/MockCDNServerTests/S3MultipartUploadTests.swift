import Foundation
import Hummingbird
import MockCDNCore
import NIOCore
import Testing

@testable import MockCDNServer

/// The pure pieces of S3 multipart uploads: CompleteMultipartUpload's document, S3's checks of the parts it
/// names, the multipart ETag (against values Python's hashlib computes), the registry's lifetime, and the
/// parameters of UploadPart and UploadPartCopy.
@Suite("S3 multipart uploads")
struct S3MultipartUploadTests {
    static let mebibyte = 1024 * 1024

    /// Parts' bytes and the object ETag S3 gives them joined, from
    /// `'"%s-%d"' % (hashlib.md5(b"".join(hashlib.md5(p).digest() for p in parts)).hexdigest(), len(parts))`.
    static let etagVectors: [(parts: [[UInt8]], etag: String)] = [
        ([Array("hello".utf8), Array(" world".utf8)], "\"a56979024342128ecebc884e3442121b-2\""),
        ([[]], "\"59adb24ef3cdbe0297f05b395827453f-1\""),
        (
            [
                Array((0..<4096).flatMap { _ in 0...255 as ClosedRange<UInt8> }),
                Array((0..<4096).flatMap { _ in 0...255 as ClosedRange<UInt8> }), Array("tail".utf8),
            ],
            "\"7349968f57e3d55fdd529893c0aecd64-3\""
        ),
        (
            [Array(repeating: UInt8(ascii: "a"), count: 5_242_880), Array("b".utf8)],
            "\"e5a8c5272b26fc10581a21089559b006-2\""
        ),
    ]

    @Test("the multipart ETag is the MD5 of the parts' binary MD5s, then the count", arguments: 0..<4)
    func multipartETag(vector: Int) {
        let (parts, expected) = Self.etagVectors[vector]
        let etags = parts.map { "\"" + Digest.md5($0).hexString + "\"" }
        #expect(CompletedParts.etag(ofParts: etags) == expected)
    }

    @Test("boto3's document, with its namespace, quoted ETags and checksums, is read in order")
    func parsesBoto3Document() async throws {
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Part>\
            <ETag>&quot;5d41402abc4b2a76b9719d911017c592&quot;</ETag><PartNumber>1</PartNumber>\
            <ChecksumCRC32>NhCmhg==</ChecksumCRC32></Part><Part><ETag>"7d793037a0760186574b0282f2f435e7"</ETag>\
            <PartNumber> 2 </PartNumber></Part></CompleteMultipartUpload>
            """
        let parts = try await CompletedParts.read(ByteBuffer(string: document))
        #expect(
            parts.entries == [
                .init(number: 1, etag: "\"5d41402abc4b2a76b9719d911017c592\"", checksums: [.crc32: "NhCmhg=="]),
                .init(number: 2, etag: "\"7d793037a0760186574b0282f2f435e7\""),
            ]
        )
    }

    @Test(
        "a document S3 cannot read as a completion is MalformedXML",
        arguments: [
            "",
            "<nothing/>",
            "<CompleteMultipartUpload></CompleteMultipartUpload>",
            "<CompleteMultipartUpload><Part><ETag>x</ETag></Part></CompleteMultipartUpload>",
            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber></Part></CompleteMultipartUpload>",
            "<CompleteMultipartUpload><Part><PartNumber>one</PartNumber><ETag>x</ETag></Part></CompleteMultipartUpload>",
            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>x</ETag></Part>",
            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><PartNumber>2</PartNumber><ETag>x</ETag></Part>"
                + "</CompleteMultipartUpload>",
            // Only a commented-out part.
            "<CompleteMultipartUpload><!--<Part><PartNumber>1</PartNumber><ETag>x</ETag></Part>-->"
                + "</CompleteMultipartUpload>",
            #"<CompleteMultipartUpload xmlns="urn:other"><Part><PartNumber>1</PartNumber><ETag>x</ETag></Part>"#
                + "</CompleteMultipartUpload>",
            #"<!DOCTYPE c [<!ENTITY e "1">]><CompleteMultipartUpload><Part><PartNumber>&e;</PartNumber>"#
                + "<ETag>x</ETag></Part></CompleteMultipartUpload>",
            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>x</ETag>"
                + String(repeating: "<a>", count: 10_000) + String(repeating: "</a>", count: 10_000)
                + "</Part></CompleteMultipartUpload>",
        ]
    )
    func malformed(document: String) async {
        do {
            _ = try await CompletedParts.read(ByteBuffer(string: document))
            Issue.record("read as a completion: \(document)")
        } catch let error as S3Error {
            #expect(error.code == "MalformedXML" && error.status == .badRequest)
            #expect(error.message == S3Error.malformedXML.message)
        } catch {
            Issue.record("not S3's error: \(error)")
        }
    }

    @Test("more than 10,000 parts is MalformedXML")
    func tooManyParts() async {
        let parts = String(repeating: "<Part><PartNumber>1</PartNumber><ETag>x</ETag></Part>", count: 10_001)
        await #expect(throws: S3Error.self) {
            try await CompletedParts.read(
                ByteBuffer(string: "<CompleteMultipartUpload>" + parts + "</CompleteMultipartUpload>")
            )
        }
    }

    // MARK: - The checks of the parts named

    static func upload(sizes: [Int]) throws -> MultipartUploads.Upload {
        var upload = MultipartUploads.Upload(
            id: "u1",
            app: "demo",
            key: try ObjectKey("demo/a/b.bin"),
            contentType: nil,
            extras: [:],
            initiated: Date(timeIntervalSince1970: 0),
            touched: Date(timeIntervalSince1970: 0)
        )
        for (index, size) in sizes.enumerated() {
            let number = index + 1
            upload.parts[number] = MultipartUploads.Part(
                number: number,
                storeKey: try MultipartUploads.storeKey(upload: "u1", part: number),
                etag: "\"\(String(repeating: String(number), count: 32))\"",
                size: size,
                lastModified: Date(timeIntervalSince1970: 0)
            )
        }
        return upload
    }

    static func completion(_ parts: [(Int, String)]) throws -> CompletedParts {
        let body = parts.map { "<Part><PartNumber>\($0.0)</PartNumber><ETag>\($0.1)</ETag></Part>" }.joined()
        let document = ByteBuffer(string: "<CompleteMultipartUpload>\(body)</CompleteMultipartUpload>")
        return try CompletedParts(try XMLReader.parse(document, limits: CompletedParts.limits))
    }

    static func refusal(_ parts: [(Int, String)], sizes: [Int]) throws -> S3Error? {
        do {
            _ = try Self.completion(parts).select(from: try Self.upload(sizes: sizes))
            return nil
        } catch let error as S3Error {
            return error
        }
    }

    @Test("the parts named are joined in order; ETags match quoted or not, in any case")
    func selects() throws {
        let upload = try Self.upload(sizes: [5 * Self.mebibyte, 5 * Self.mebibyte, 10])
        let selected = try Self.completion([
            (1, String(repeating: "1", count: 32)), (3, "\"" + String(repeating: "3", count: 32) + "\""),
        ])
        .select(from: upload)
        #expect(selected.map(\.number) == [1, 3])
    }

    @Test("an ETag is compared bare: the whitespace around it, then its quotes, left out, in any case")
    func bareETags() {
        #expect(CompletedParts.bare(" \"ABCdef\"\n") == "abcdef")
        #expect(CompletedParts.bare("\"\"") == "" && CompletedParts.bare("\"é\"") == "é")
        #expect(CompletedParts.same("\"abcdef\"", "\t ABCDEF "))
        #expect(!CompletedParts.same("\"abcdef\"", "abcde"))
        #expect(!CompletedParts.same("\"abc def\"", "abcdef"))
        // Quotes inside spaces are left out; spaces inside quotes are part of the tag.
        #expect(!CompletedParts.same("\" abcdef \"", "abcdef"))
    }

    @Test("a part not uploaded, or with another ETag, is InvalidPart with S3's details")
    func invalidPart() throws {
        let unknown = try #require(try Self.refusal([(1, "1"), (4, "x")], sizes: [5 * Self.mebibyte, 10]))
        #expect(unknown.code == "InvalidPart" && unknown.status == .badRequest)
        let wrong = try #require(try Self.refusal([(1, "\"0000\"")], sizes: [10]))
        #expect(wrong.code == "InvalidPart")
        #expect(wrong.details.map(\.0) == ["UploadId", "PartNumber", "ETag"])
        #expect(wrong.details.map(\.1) == ["u1", "1", "0000"])
    }

    @Test("parts out of ascending order, or named twice, are InvalidPartOrder")
    func invalidPartOrder() throws {
        let one = String(repeating: "1", count: 32)
        let two = String(repeating: "2", count: 32)
        let sizes = [5 * Self.mebibyte, 5 * Self.mebibyte]
        #expect(try Self.refusal([(2, two), (1, one)], sizes: sizes)?.code == "InvalidPartOrder")
        #expect(try Self.refusal([(1, one), (1, one)], sizes: sizes)?.code == "InvalidPartOrder")
    }

    @Test("a part under 5 MiB before the last is EntityTooSmall with its size, the minimum, its number and ETag")
    func entityTooSmall() throws {
        let one = String(repeating: "1", count: 32)
        let two = String(repeating: "2", count: 32)
        let refusal = try #require(try Self.refusal([(1, one), (2, two)], sizes: [5 * Self.mebibyte - 1, 1]))
        #expect(refusal.code == "EntityTooSmall")
        #expect(refusal.details.map(\.1) == [String(5 * Self.mebibyte - 1), "5242880", "1", one])
        // The last part may be of any size, and a single part is the last.
        #expect(try Self.refusal([(1, one), (2, two)], sizes: [5 * Self.mebibyte, 1]) == nil)
        #expect(try Self.refusal([(1, one)], sizes: [1]) == nil)
    }

    // MARK: - The registry

    @Test("an upload untouched for 24 hours of the clock is freed, with its parts; a touched one is not")
    func lifetime() throws {
        let uploads = MultipartUploads()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let key = try ObjectKey("demo/a.bin")
        let upload = uploads.create(app: "demo", key: key, contentType: nil, extras: [:], now: start)
        let part = MultipartUploads.Part(
            number: 1,
            storeKey: try MultipartUploads.storeKey(upload: upload.id, part: 1),
            etag: "\"x\"",
            size: 1,
            lastModified: start
        )
        #expect(try uploads.record(part, in: upload.id, key: key, now: start) == nil)
        let almost = start.addingTimeInterval(MultipartUploads.lifetime)
        #expect(uploads.expire(now: almost).isEmpty)
        _ = try uploads.upload(upload.id, key: key, now: almost)
        #expect(uploads.expire(now: almost.addingTimeInterval(MultipartUploads.lifetime)).isEmpty)
        #expect(uploads.expire(now: almost.addingTimeInterval(MultipartUploads.lifetime + 1)) == [part.storeKey])
        #expect(throws: S3Error.self) { try uploads.upload(upload.id, key: key, now: almost) }
    }

    @Test("a re-sent part hands back the one it replaces; an upload belongs to its key; completing blocks changes")
    func registry() throws {
        let uploads = MultipartUploads()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let key = try ObjectKey("demo/a.bin")
        let upload = uploads.create(app: "demo", key: key, contentType: "text/plain", extras: [:], now: now)
        #expect(upload.bucketKey == "a.bin" && upload.id.count == 48)
        func part(_ number: Int) throws -> MultipartUploads.Part {
            MultipartUploads.Part(
                number: number,
                storeKey: try MultipartUploads.storeKey(upload: upload.id, part: number),
                etag: "\"x\"",
                size: 1,
                lastModified: now
            )
        }
        let first = try part(1)
        let again = try part(1)
        #expect(first.storeKey != again.storeKey)
        #expect(MultipartUploads.uploadID(ofPart: first.storeKey.rawValue) == upload.id)
        _ = try uploads.record(first, in: upload.id, key: key, now: now)
        #expect(try uploads.record(again, in: upload.id, key: key, now: now) == first.storeKey)
        #expect(throws: S3Error.self) { try uploads.upload(upload.id, key: try ObjectKey("demo/b.bin"), now: now) }
        _ = try uploads.beginCompletion(upload.id, key: key, now: now)
        #expect(throws: S3Error.self) { try uploads.record(try part(2), in: upload.id, key: key, now: now) }
        #expect(throws: S3Error.self) { try uploads.abort(upload.id, key: key) }
        #expect(uploads.expire(now: now.addingTimeInterval(3 * MultipartUploads.lifetime)).isEmpty)
        #expect(uploads.endCompletion(upload.id, completed: false).isEmpty)
        #expect(try uploads.abort(upload.id, key: key) == [again.storeKey])
        #expect(!uploads.isOpen(upload.id))
    }

    @Test("parts are stored under a first segment no app id may take")
    func partsAreOutOfEveryApp() {
        let segment = String(MultipartUploads.partPrefix.split(separator: "/")[0])
        #expect(RouteCatalog.reservedPrefixes.contains(segment))
    }

    // MARK: - UploadPart's parameters

    @Test(
        "part numbers are 1 to 10,000",
        arguments: [("1", 1), ("10000", 10_000), ("0", nil), ("10001", nil), ("x", nil), (nil, nil)]
            as [(String?, Int?)]
    )
    func partNumber(text: String?, expected: Int?) {
        #expect((try? ObjectParts.number(text)) == expected)
    }

    @Test(
        "x-amz-copy-source-range is bytes=FIRST-LAST within the source",
        arguments: [
            (nil, 0..<100), ("bytes=0-99", 0..<100), ("bytes=10-10", 10..<11), ("bytes=0-100", nil),
            ("bytes=5-4", nil), ("bytes=-5", nil), ("bytes=5-", nil), ("items=0-1", nil), ("bytes=a-b", nil),
        ] as [(String?, Range<Int>?)]
    )
    func copyRange(header: String?, expected: Range<Int>?) {
        #expect((try? PartWriter.copyRange(header, size: 100)) == expected)
    }

    @Test("a ListParts GET is the S3 surface's, by its uploadId")
    func handoff() {
        let handoff = QueryHandoff(parameter: "uploadId") { _, _ in Response(status: .ok) }
        #expect(handoff.claims(QueryItems("uploadId=abc&max-parts=2")))
        #expect(!handoff.claims(QueryItems("w=100&uploadid=abc")))
    }
}
