import Foundation
import NIOCore
import Testing

@testable import MockCDNServer

@Suite("Multipart header-name guard (a fuzzing regression)")
struct MultipartGuardTests {
    static func scan(_ text: [UInt8], boundary: String = "b", chunk: Int = 3) -> Bool {
        var guardian = HeaderNameGuard(boundary: boundary)
        var offset = 0
        while offset < text.count {
            let piece = ByteBuffer(bytes: text[offset..<min(offset + chunk, text.count)])
            if !guardian.scan(piece) { return false }
            offset += chunk
        }
        return true
    }

    @Test(
        "non-ASCII bytes in a header name are caught in any chunking; values, bodies and preambles may hold them",
        arguments: [1, 2, 3, 7, 64]
    )
    func chunkings(_ chunk: Int) {
        let bad =
            Array("--b\r\nContent-Disp".utf8) + [0x8f]
            + Array("sition: form-data; name=\"file\"\r\n\r\nx\r\n--b--\r\n".utf8)
        #expect(!Self.scan(bad, chunk: chunk))
        let secondPart =
            Array("--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--b\r\nX".utf8) + [0xc3, 0xa9]
            + Array(": 1\r\n\r\ny\r\n--b--\r\n".utf8)
        #expect(!Self.scan(secondPart, chunk: chunk))
        let fine =
            Array("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"".utf8) + [0xc3, 0xbc]
            + Array(".txt\"\r\n\r\n".utf8) + [0xff, 0xfe, 0x80] + Array("\r\n--b--\r\n".utf8)
        #expect(Self.scan(fine, chunk: chunk))
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
