import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore
import Testing

@testable import MockCDNServer

/// Reads of one part (`?partNumber=N`): the part sizes a completed multipart upload keeps among its object's
/// extras, the byte range of part N, and S3's refusals (400 `InvalidRequest` with a Range, 400
/// `InvalidArgument`, 416 `InvalidPartNumber`).
@Suite("Reads of one part")
struct PartReadTests {
    static let mebibyte = 1024 * 1024

    /// An object of `size` bytes with `extras`.
    static func object(size: Int, extras: [String: String]) throws -> ObjectMetadata {
        ObjectMetadata(
            key: try ObjectKey("demo/object.bin"),
            size: size,
            sha256: [UInt8](repeating: 0, count: 32),
            attributes: ObjectAttributes(contentType: "application/octet-stream", extras: extras)
        )
    }

    /// A GET of `/demo/object.bin` with `query` and, when given, a Range header.
    static func read(query: String, range: String? = nil) -> (Request, QueryItems) {
        var fields = HTTPFields()
        if let range { fields[.range] = range }
        let head = HTTPRequest(
            method: .get,
            scheme: "http",
            authority: "localhost",
            path: "/demo/object.bin?" + query,
            headerFields: fields
        )
        return (Request(head: head, body: RequestBody(buffer: ByteBuffer())), QueryItems(query))
    }

    @Test(
        "part N's bytes follow the parts before it",
        arguments: [
            ([5, 5, 3], 1, 0..<5), ([5, 5, 3], 2, 5..<10), ([5, 5, 3], 3, 10..<13), ([5, 5, 3], 0, nil),
            ([5, 5, 3], 4, nil), ([7], 1, 0..<7), ([5, 0], 2, 5..<5),
        ] as [([Int], Int, Range<Int>?)]
    )
    func partRange(sizes: [Int], number: Int, expected: Range<Int>?) {
        #expect(ObjectParts(sizes: sizes).range(ofPart: number) == expected)
    }

    @Test("the sizes are kept as one extra and read back")
    func roundTrip() throws {
        let parts = ObjectParts(sizes: [5 * Self.mebibyte, 5 * Self.mebibyte, 1024])
        #expect(parts.extraValue == "5242880,5242880,1024")
        let object = try Self.object(size: 10 * Self.mebibyte + 1024, extras: [ObjectParts.extra: parts.extraValue])
        #expect(ObjectParts(of: object) == parts)
    }

    @Test(
        "kept sizes that are no list of sizes, or do not add up to the object, are no parts",
        arguments: [nil, "", "5,,3", "5,5,3,", "-1,14", "a", "5,5,4", "13 "] as [String?]
    )
    func unreadable(value: String?) throws {
        let object = try Self.object(size: 13, extras: value.map { [ObjectParts.extra: $0] } ?? [:])
        #expect(ObjectParts(of: object) == nil)
    }

    @Test("an object not joined from parts is one part: part 1 is all of it")
    func onePart() throws {
        #expect(try PartRead(number: 1).bytes(size: 14, parts: nil) == 0..<14)
        #expect(try PartRead(number: 1).bytes(size: 0, parts: nil) == 0..<0)
        let error = #expect(throws: S3Error.self) { try PartRead(number: 2).bytes(size: 14, parts: nil) }
        #expect(error?.status == .rangeNotSatisfiable && error?.code == "InvalidPartNumber")
        #expect(error?.details.map(\.0) == ["PartNumberRequested", "ActualPartCount"])
        #expect(error?.details.map(\.1) == ["2", "1"])
    }

    @Test("a part past the last is 416 InvalidPartNumber naming the count")
    func pastTheLast() throws {
        let parts = ObjectParts(sizes: [5, 5, 3])
        #expect(try PartRead(number: 3).bytes(size: 13, parts: parts) == 10..<13)
        let error = #expect(throws: S3Error.self) { try PartRead(number: 4).bytes(size: 13, parts: parts) }
        #expect(error?.details.map(\.1) == ["4", "3"])
    }

    @Test(
        "partNumber is read from the query, after the Range check",
        arguments: [
            ("partNumber=2", nil, 2, nil), ("partNumber=10000", nil, 10_000, nil), ("w=10", nil, nil, nil),
            ("w=10", "bytes=0-1", nil, nil), ("partNumber=1", "bytes=0-1", nil, "InvalidRequest"),
            ("partNumber=0", "bytes=0-1", nil, "InvalidRequest"), ("partNumber=0", nil, nil, "InvalidArgument"),
            ("partNumber=10001", nil, nil, "InvalidArgument"), ("partNumber=-1", nil, nil, "InvalidArgument"),
            ("partNumber=two", nil, nil, "InvalidArgument"), ("partNumber=", nil, nil, "InvalidArgument"),
        ] as [(String, String?, Int?, String?)]
    )
    func requested(query: String, range: String?, number: Int?, code: String?) {
        let (request, items) = Self.read(query: query, range: range)
        do {
            let part = try PartRead.requested(request, query: items)
            #expect(code == nil && part?.number == number)
        } catch {
            #expect(error.code == code && error.status == .badRequest)
        }
    }
}
