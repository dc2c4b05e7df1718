import Foundation
import NIOCore
import Testing

@testable import MockCDNServer

@Suite("Multipart parser: every byte sequence ends in events or a refusal, never a trap")
struct MultipartParserTests {
    /// The parser's events for `body` fed in `chunk`-byte pieces, with body bytes joined per part.
    static func parse(
        _ body: [UInt8],
        boundary: String = "b",
        chunk: Int = 3
    ) throws(MultipartParser.Failure)
        -> (headers: [[String]], bodies: [[UInt8]], complete: Bool)
    {
        var parser = MultipartParser(boundary: boundary)
        var events: [MultipartParser.Event] = []
        var offset = 0
        while offset < body.count {
            try parser.feed(ByteBuffer(bytes: body[offset..<min(offset + chunk, body.count)]), into: &events)
            offset += chunk
        }
        var headers: [[String]] = [[]]
        var bodies: [[UInt8]] = [[]]
        for event in events {
            switch event {
            case .header(let name, let value): headers[headers.count - 1].append("\(name)=\(value)")
            case .body(let buffer): bodies[bodies.count - 1] += Array(buffer.readableBytesView)
            case .partEnd:
                headers.append([])
                bodies.append([])
            }
        }
        return (headers.dropLast(), bodies.dropLast(), parser.isComplete)
    }

    static let chunkings = [1, 2, 3, 7, 64, 4096]

    @Test("two parts, with CRs, partial delimiters and a preamble in the data, in any chunking", arguments: chunkings)
    func wellFormed(_ chunk: Int) throws {
        let first: [UInt8] = Array("a\r\nb\r\n-\r\n--\r\n--c\r".utf8) + [0xff, 0x00, 0x0d]
        let body =
            Array("preamble\r\n--b\r\nContent-Disposition: form-data; name=\"file\"\r\nX-Empty:\r\n\r\n".utf8) + first
            + Array("\r\n--b  \r\nA:  1\r\n\r\n\r\n--b--\r\nepilogue \u{1}".utf8)
        let result = try Self.parse(body, chunk: chunk)
        #expect(result.complete)
        #expect(result.headers == [["Content-Disposition=form-data; name=\"file\"", "X-Empty="], ["A=1"]])
        #expect(result.bodies == [first, []])
    }

    @Test(
        "header names that are not RFC 9110 tokens never come out: refused, or not a part at all",
        arguments: chunkings
    )
    func headerNames(_ chunk: Int) throws {
        let refused: [[UInt8]] = [
            // The fuzzing regression: a non-ASCII byte in a name.
            Array("--b\r\nContent-Disp".utf8) + [0x8f]
                + Array("sition: form-data; name=\"file\"\r\n\r\nx\r\n--b--\r\n".utf8),
            // In a second part.
            Array("--b\r\nA: 1\r\n\r\nx\r\n--b\r\nB C: 1\r\n\r\ny\r\n--b--\r\n".utf8),
            Array("--b\r\n: empty name\r\n\r\nx\r\n--b--\r\n".utf8),
            Array("--b\r\nno colon\r\n\r\nx\r\n--b--\r\n".utf8),
            Array("--b\r\nA: 1\nB: 2\r\n\r\nx\r\n--b--\r\n".utf8),
            Array("--b\r\nA: 1\r\n\r\nx\r\n--b\r\n\u{1}: 1\r\n\r\ny\r\n--b--\r\n".utf8),
        ]
        for body in refused {
            #expect(throws: MultipartParser.Failure.self) { try Self.parse(body, chunk: chunk) }
        }
        // The bypass of the old guard, a boundary after a bare LF or stray bytes: not a delimiter (RFC 2046
        // puts CRLF before every one but the first), so what follows is preamble and no part opens.
        let preambles: [[UInt8]] = [
            Array("\n--b\r\nX".utf8) + [0xc3, 0xa9] + Array(": 1\r\n\r\ny\r\n--b--\r\n".utf8),
            Array("junk--b\r\nX".utf8) + [0x80] + Array(": 1\r\n\r\ny\r\n--b--\r\n".utf8),
        ]
        for body in preambles {
            let result = try Self.parse(body, chunk: chunk)
            #expect(result.headers.isEmpty)
        }
    }

    @Test("a preamble holding the boundary without CRLF before it is preamble, not a part")
    func boundaryInsideText() throws {
        let result = try Self.parse(Array("x--b\r\nA: 1\r\n\r\n--b\r\nB: 2\r\n\r\nz\r\n--b--".utf8), chunk: 5)
        #expect(result.headers == [["B=2"]])
        #expect(result.bodies == [Array("z".utf8)])
    }

    @Test("a header line is refused once it passes the bound, before the line ends")
    func headerLineBound() throws {
        var parser = MultipartParser(boundary: "b")
        var events: [MultipartParser.Event] = []
        try parser.feed(ByteBuffer(string: "--b\r\nX: "), into: &events)
        let piece = ByteBuffer(repeating: UInt8(ascii: "a"), count: 1024)
        var fed = 0
        var refused = false
        while fed < 48 * 1024 * 1024 {
            do {
                try parser.feed(piece, into: &events)
            } catch {
                refused = true
                break
            }
            fed += piece.readableBytes
        }
        #expect(refused)
        #expect(fed <= MultipartParser.maximumHeaderBytes)
    }

    @Test("a body that ends before its close delimiter is incomplete")
    func truncated() throws {
        #expect(try !Self.parse(Array("--b\r\nA: 1\r\n\r\nxyz".utf8)).complete)
        #expect(try !Self.parse(Array("--b\r\nA: 1\r\n\r\nxyz\r\n--b".utf8)).complete)
        #expect(try !Self.parse([]).complete)
    }

    @Test("body bytes are slices of the chunk, not copies")
    func zeroCopy() throws {
        var parser = MultipartParser(boundary: "b")
        var events: [MultipartParser.Event] = []
        let data = ByteBuffer(repeating: 7, count: 100_000)
        try parser.feed(ByteBuffer(string: "--b\r\nA: 1\r\n\r\n"), into: &events)
        try parser.feed(data, into: &events)
        guard case .body(let slice) = events.last else {
            Issue.record("no body event")
            return
        }
        #expect(slice.readableBytes == data.readableBytes)
        let same = slice.withUnsafeReadableBytes { a in
            data.withUnsafeReadableBytes { b in a.baseAddress == b.baseAddress }
        }
        #expect(same)
    }

    @Test("a chunk of body bytes full of CRs and near-delimiters leaves as one slice, not one per CR")
    func oneSlicePerChunk() throws {
        var parser = MultipartParser(boundary: "boundary")
        var events: [MultipartParser.Event] = []
        // Every 100 bytes a CR, a CRLF-- and a delimiter that breaks off one byte short.
        let piece = [UInt8](repeating: 1, count: 80) + Array("\r\r\n--\r\n--boundar".utf8) + [0x0d, 0x0a]
        var data = ByteBuffer()
        for _ in 0..<1000 { data.writeBytes(piece) }
        try parser.feed(ByteBuffer(string: "--boundary\r\nA: 1\r\n\r\n"), into: &events)
        events.removeAll()
        try parser.feed(data, into: &events)
        // The chunk ends in CRLF, the delimiter's first two bytes: held back until the next chunk.
        let sizes = events.map { event -> Int in
            if case .body(let slice) = event { return slice.readableBytes }
            return -1
        }
        #expect(sizes == [data.readableBytes - 2])
        try parser.feed(ByteBuffer(string: "--boundary--\r\n"), into: &events)
        #expect(parser.isComplete)
    }

    @Test("the input that crashed the server is refused with 400 and the server lives on")
    func regression() async throws {
        let input = try Data(contentsOf: Fixture.url("../Fuzz/Regressions/FuzzMultipart/non-ascii-header-name"))
        let body = input[(input.firstIndex(of: UInt8(ascii: "\n"))! + 1)...]
        try await DiskServer.run { server in
            let reply = try await HTTP.send(
                "POST",
                server.url("/api/v2/uploads/file?api_key=demo-key"),
                headers: Tokens.headers(Tokens.user("alice")).merging([
                    "Content-Type": "multipart/form-data; boundary=b"
                ]) {
                    $1
                },
                body: Data(body)
            )
            #expect(reply.status == 400)
            #expect(reply.streamCode == 4)
            #expect(try server.storedCount() == 0)
            #expect(try await HTTP.get(server.url("/_mockcdn/health")).status == 200)
        }
    }
}
