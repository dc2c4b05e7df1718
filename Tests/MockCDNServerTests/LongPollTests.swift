import Foundation
import Logging
import MockCDNCore
import MockCDNPoolWatchdog
import MockCDNTesting
import Testing

@testable import MockCDNServer

#if canImport(Glibc)
import Glibc
#endif

/// The long poll of `GET /_mockcdn/events` on a real server, over real sockets: a poll whose client went away
/// stops waiting (and counting) at once, and an upload wakes only the polls whose filter its event passes. Both
/// are observed on the server's own queue (handed in through the configuration), by awaited events and counts,
/// never by timing.
@Suite("Long polls: a poll whose client left stops counting; an event wakes only the polls it passes")
struct LongPollTests {
    /// Runs `body` with a server whose event queue the test holds.
    static func withServer(_ body: @Sendable (RunningMockCDN, EventQueue) async throws -> Void) async throws {
        let queue = EventQueue()
        var configuration = ServerConfiguration(logLevel: .warning)
        configuration.fixturesDirectory = nil
        configuration.eventQueue = queue
        try await MockCDNTestServer.withRunning(configuration) { server in try await body(server, queue) }
    }

    /// Whether `operation` ends within `limit`: the limit bounds a test that would otherwise hang, and is never
    /// what the test measures.
    static func ends(within limit: Duration, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await operation()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// A Stream file upload to the demo app: one `ObjectCreated:Put` event.
    static func upload(_ server: RunningMockCDN, name: String) async throws {
        var headers = Tokens.headers(Tokens.user("alice"))
        headers["Content-Type"] = Multipart.contentType
        let reply = try await HTTP.send(
            "POST",
            server.url("/channels/messaging/general/file?api_key=demo-key"),
            headers: headers,
            body: Multipart.body([.file(Media.text, name: name, type: "text/plain")])
        )
        try #require(reply.status == 201, "\(reply.text)")
    }

    @Test("a poll whose client closed its connection stops counting within a second", .timeLimit(.minutes(1)))
    func clientLeaves() async throws {
        try await Self.withServer { server, queue in
            let poll = try PollSocket(port: try #require(server.baseURL.port), target: "/_mockcdn/events?wait=60")
            await queue.waiting(count: 1)
            poll.close()
            // The fall of the count is awaited. Before, the poll went on waiting out its 60 s; the limit is ten
            // times the second a poll may outlive its client.
            #expect(await Self.ends(within: .seconds(10)) { await queue.waiting(count: 0) })
            let listing = try await HTTP.get(server.url("/_mockcdn/events"))
            #expect(listing.json["waiting"] as? Int == 0)
        }
    }

    @Test(
        "an upload that no poll's filter passes wakes none; one that a poll takes wakes that one",
        .timeLimit(.minutes(1))
    )
    func wakesOnlyItsPolls() async throws {
        try await Self.withServer { server, queue in
            let port = try #require(server.baseURL.port)
            let after = try #require(try await HTTP.get(server.url("/_mockcdn/events")).json["last_id"] as? Int)
            let others = try (0..<3).map { _ in
                try PollSocket(port: port, target: "/_mockcdn/events?after=\(after)&wait=60&target=nobody")
            }
            defer { for poll in others { poll.close() } }
            await queue.waiting(count: 3)
            try await Self.upload(server, name: "first.txt")
            // The event is in the queue once the upload answered; it woke nobody, and every poll still waits.
            #expect(queue.lastID == after + 1)
            #expect(queue.woken == 0)
            #expect(queue.waiting == 3)

            let mine = try PollSocket(port: port, target: "/_mockcdn/events?after=\(after + 1)&wait=60&app=demo")
            await queue.waiting(count: 4)
            try await Self.upload(server, name: "second.txt")
            let reply = try await mine.reply()
            #expect(reply.status == 200)
            #expect(reply.header("connection") == "close")
            let listing = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any]
            let events = try #require(listing?["events"] as? [[String: Any]])
            #expect(events.map { $0["id"] as? Int } == [after + 2])
            #expect(queue.woken == 1)
            #expect(queue.waiting == 3)
        }
    }

    @Test("a long poll with a body is refused: nothing would read it", .timeLimit(.minutes(1)))
    func bodyRefused() async throws {
        try await Self.withServer { server, queue in
            let poll = try PollSocket(
                port: try #require(server.baseURL.port),
                target: "/_mockcdn/events?wait=5",
                headers: "Content-Type: application/json\r\nContent-Length: 2\r\n",
                body: "{}"
            )
            let reply = try await poll.reply()
            #expect(reply.status == 400)
            let answer = try JSONSerialization.jsonObject(with: reply.body) as? [String: [String: String]]
            #expect(answer == ["error": ["message": "GET /_mockcdn/events takes no body"]])
            #expect(queue.waiting == 0)
        }
    }
}

/// A request written on a socket of its own and left open: a long poll a test can abandon (`close`) or read
/// the answer of (`reply`).
final class PollSocket: @unchecked Sendable {
    private let socket: Int32
    private let port: Int
    private var closed = false

    /// Connects to 127.0.0.1:`port` and sends `GET target`, with `headers` (each line ending in CRLF) and
    /// `body` when given.
    init(port: Int, target: String, headers: String = "", body: String = "") throws {
        self.port = port
        self.socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard self.socket >= 0 else { throw RawHTTP.Failure(description: "socket") }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(self.socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(self.socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(self.socket)
            throw RawHTTP.Failure(description: "connect")
        }
        let request = Data("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(headers)\r\n\(body)".utf8)
        let sent = request.withUnsafeBytes { Glibc.send(self.socket, $0.baseAddress, $0.count, 0) }
        guard sent == request.count else { throw RawHTTP.Failure(description: "send") }
    }

    /// The answer, read on a thread of its own (a blocking read on a cooperative thread could starve the
    /// server).
    func reply() async throws -> RawReply {
        let socket = self.socket
        return try await outsidePool {
            var buffer = Data()
            while true {
                if let reply = try RawHTTP.parse(&buffer, head: false) { return reply }
                var chunk = [UInt8](repeating: 0, count: 65536)
                let count = recv(socket, &chunk, chunk.count, 0)
                guard count > 0 else { throw RawHTTP.Failure(description: "no answer") }
                buffer.append(contentsOf: chunk[..<count])
            }
        }
    }

    /// Closes the connection, as a client that goes away does.
    func close() {
        guard !self.closed else { return }
        self.closed = true
        Glibc.close(self.socket)
    }

    deinit { self.close() }
}
