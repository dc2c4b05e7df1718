import Foundation
import Logging
import MockCDNCore
import MockCDNTesting
import NIOHTTP1
import Testing

@testable import MockCDNServer

/// A request that offers to switch protocols (Java's `HttpClient` offering `h2c`, a websocket handshake) is
/// answered as plain HTTP/1.1, and the connection goes on answering the requests after it, pipelined or not,
/// on a control route, a read through the router and a fast read. Before `UpgradeDecliner`, NIO's decoder
/// stopped after such a request and the next one waited for the idle timeout: each end-to-end test here then
/// fails with "no answer 2 within 30 s".
@Suite("Protocol upgrades")
struct UpgradeRequestTests {
    /// What a client offers to switch to, in the headers its library sends.
    enum Offer: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case h2c
        case websocket

        var headers: String {
            switch self {
            case .h2c:
                // What `java.net.http.HttpClient` sends on a cleartext HTTP/1.1 connection.
                "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n"
            case .websocket:
                "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Sec-WebSocket-Version: 13\r\n"
            }
        }

        var testDescription: String { self.rawValue }
    }

    /// Which path through the server the requests take.
    enum Path: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// `GET /_mockcdn/health`, through the router.
        case control
        /// A FAT read of a stored object, fast reads off: through the router and `CDNController`.
        case routedRead
        /// The same read, fast reads on: answered on the event loop by `FastReadHandler`.
        case fastRead

        var testDescription: String { self.rawValue }
    }

    /// The 64 KiB object `FastReadTests.withServer` stores, and its path.
    static let object = FastReadTests.objects[0]
    static var objectPath: String { "/" + Self.object.key }

    /// A GET of `path`'s target, with `extra` header lines (each ending in CRLF).
    static func get(_ path: Path, port: Int, extra: String = "") throws -> String {
        let target = path == .control ? "/_mockcdn/health" : Self.objectPath
        let credential = path == .control ? "" : "fat: \(try Self.fat())\r\n"
        return "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(credential)\(extra)\r\n"
    }

    /// A FAT for the demo app, minted at the clock `FastReadTests.withServer` sets.
    static func fat() throws -> String {
        let now = FastReadTests.loaded + 10
        return FileAccessToken.issue(
            FileAccessClaims(appID: "demo", userID: "alice", issuedAt: now, expiresAt: now + 3600),
            key: try MediaApp(.demo).secretKey
        )
    }

    /// Checks an answer to a GET of `path`: 200, plain HTTP/1.1 (no switch, no `Upgrade`, no close), and
    /// for a read the object's bytes.
    static func expectAnswered(_ reply: RawReply, _ path: Path, _ comment: Comment) {
        #expect(reply.status == 200, comment)
        #expect(reply.header("upgrade") == nil, comment)
        #expect(reply.header("connection")?.lowercased() != "close", comment)
        if path != .control { #expect(reply.body == Self.object.bytes, comment) }
    }

    @Test(
        "a request offering an upgrade is answered as HTTP/1.1, and so is the next one on its connection",
        arguments: Offer.allCases,
        Path.allCases
    )
    func nextRequestAnswered(offer: Offer, path: Path) async throws {
        try await FastReadTests.withServer(fast: path == .fastRead) { server in
            let port = try #require(server.baseURL.port)
            let before = try await FastReadTests.fastReadCount(server)
            for pipelined in [false, true] {
                let messages = [
                    try Self.get(path, port: port, extra: offer.headers), try Self.get(path, port: port),
                ]
                let replies = try await RawSocket.exchange(port: port, messages, pipelined: pipelined)
                for (index, reply) in replies.enumerated() {
                    Self.expectAnswered(reply, path, "\(offer) \(path) pipelined \(pipelined): answer \(index + 1)")
                }
            }
            // A request with a `Connection` header is always the router's (`FastReads`), so the offers went through
            // the router; the plain reads after them were answered by the fast path, on the fast server.
            let taken = try await FastReadTests.fastReadCount(server) - before
            #expect(taken == (path == .fastRead ? 2 : 0))
        }
    }

    @Test(
        "an upgrade offered with a body: the body is read and kept once, and the next request is answered",
        arguments: Offer.allCases,
        [false, true]
    )
    func withBody(offer: Offer, chunked: Bool) async throws {
        try await MockCDNTestServer.withRunning(ServerConfiguration(logLevel: .warning)) { server in
            let port = try #require(server.baseURL.port)
            let rule = #"{"match":{"path":"/nothing/"},"action":{"status":503}}"#
            let framing =
                chunked
                ? "Transfer-Encoding: chunked\r\n\r\n\(String(rule.utf8.count, radix: 16))\r\n\(rule)\r\n0\r\n\r\n"
                : "Content-Length: \(rule.utf8.count)\r\n\r\n\(rule)"
            let post =
                "POST /_mockcdn/faults HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
                + offer.headers + framing
            let list = "GET /_mockcdn/faults HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
            let replies = try await RawSocket.exchange(port: port, [post, list], pipelined: true)
            #expect(replies[0].status == 201, "\(String(decoding: replies[0].body, as: UTF8.self))")
            #expect(replies[0].header("connection")?.lowercased() != "close")
            #expect(replies[1].status == 200)
            let listed = try JSONSerialization.jsonObject(with: replies[1].body) as? [String: Any]
            let faults = try #require(listed?["faults"] as? [[String: Any]])
            #expect(faults.count == 1)
            #expect((faults.first?["match"] as? [String: Any])?["path"] as? String == "/nothing/")
        }
    }

    @Test("several upgrade offers in one write, HEADs among them: every answer, in order, each framed right")
    func repeatedOffers() async throws {
        try await FastReadTests.withServer(fast: true) { server in
            let port = try #require(server.baseURL.port)
            let before = try await FastReadTests.fastReadCount(server)
            let head = "HEAD \(Self.objectPath) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nfat: \(try Self.fat())\r\n"
            let messages = [
                try Self.get(.fastRead, port: port, extra: Offer.h2c.headers),
                try Self.get(.fastRead, port: port, extra: Offer.websocket.headers),
                // The replaced encoder must still know that a HEAD's answer has no body: a fast one, a routed one.
                head + "\r\n",
                try Self.get(.control, port: port, extra: Offer.h2c.headers),
                head + Offer.websocket.headers + "\r\n",
                try Self.get(.fastRead, port: port),
            ]
            let replies = try await RawSocket.exchange(port: port, messages, pipelined: true, heads: [2, 4])
            #expect(replies.map(\.status) == [200, 200, 200, 200, 200, 200])
            for index in [0, 1, 5] { #expect(replies[index].body == Self.object.bytes, "answer \(index + 1)") }
            for index in [2, 4] {
                #expect(replies[index].header("content-length") == "\(Self.object.bytes.count)", "answer \(index + 1)")
                #expect(replies[index].body.isEmpty, "answer \(index + 1)")
            }
            // The two reads without an offer took the fast path.
            #expect(try await FastReadTests.fastReadCount(server) - before == 2)
        }
    }

    @Test("llhttp's reading of a switch: Upgrade with an upgrade token in Connection or Proxy-Connection, or CONNECT")
    func switchDetection() {
        func head(_ fields: [(String, String)], method: HTTPMethod = .GET) -> HTTPRequestHead {
            HTTPRequestHead(version: .http1_1, method: method, uri: "/", headers: HTTPHeaders(fields))
        }
        let switching = [
            head([("Connection", "Upgrade, HTTP2-Settings"), ("Upgrade", "h2c")]),
            head([("connection", "keep-alive , upgrade"), ("upgrade", "websocket")]),
            head([("Connection", "keep-alive"), ("Connection", "\tUPGRADE "), ("Upgrade", "x")]),
            head([("Proxy-Connection", "upgrade"), ("Upgrade", "h2c")]),
            head([], method: .CONNECT),
        ]
        let plain = [
            head([("Upgrade", "h2c")]),
            head([("Connection", "upgrade")]),
            head([("Connection", "upgrade"), ("Upgrade", " ")]),
            head([("Connection", "upgraded"), ("Upgrade", "h2c")]),
            head([("Connection", "upgrade h2c"), ("Upgrade", "h2c")]),
            head([("Connection", "Upgrade"), ("Upgrade-Insecure-Requests", "1")]),
            head([]),
        ]
        for request in switching { #expect(UpgradeDecliner.asksToSwitch(request), "\(request)") }
        for request in plain { #expect(!UpgradeDecliner.asksToSwitch(request), "\(request)") }
    }
}
