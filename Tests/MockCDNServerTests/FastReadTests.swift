import Foundation
import Logging
import MockCDNCore
import MockCDNPoolWatchdog
import MockCDNTesting
import NIOCore
import Testing

@testable import MockCDNServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Fast reads (`FastReads`, `FastReadHandler`) change no answer: the same reads, sent to a server with them on
/// and to one with them off, get the same bytes (status, every header but `Date`, in order, and body), the same
/// journal entries and the same counts; and `mockcdn_fast_reads_total` shows which reads took the fast path.
@Suite("Fast reads")
struct FastReadTests {
    /// When the objects were stored, so that both servers answer the same `Last-Modified`; the reads' clock
    /// is ten seconds later.
    static let loaded: Int64 = 1_800_000_000

    /// A 64 KiB object, a page, an SVG (active content) and a JPEG (for variants), by key and type.
    static let objects: [(key: String, type: String, bytes: Data)] = [
        (
            "demo/fixtures/big.bin", "application/octet-stream",
            Data((0..<(64 * 1024)).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) })
        ),
        (
            "demo/fixtures/page.html", "text/html",
            Data("<!doctype html><html><body><script>alert(1)</script></body></html>\n".utf8)
        ),
        (
            "demo/fixtures/icon.svg", "image/svg+xml",
            Data(
                #"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>"#.utf8
            )
        ),
        // Empty if the fixture were missing, which the variant reads' 200s would then show.
        ("demo/fixtures/photo.jpg", "image/jpeg", (try? Data(contentsOf: Fixture.url("media/sample.jpg"))) ?? Data()),
        // Readable without a credential: its ACL is `public-read`.
        ("demo/fixtures/public.txt", "text/plain", Data("anyone may read this\n".utf8)),
    ]

    /// The server's own store, kept for the test to fill.
    final class StoreBox: @unchecked Sendable {
        var store: (any ObjectStore)?
    }

    static func configuration(fast: Bool, box: StoreBox = StoreBox()) -> ServerConfiguration {
        var configuration = ServerConfiguration(logLevel: .warning)
        configuration.fixturesDirectory = nil
        configuration.fastReads = fast
        configuration.storeWrapper = { store in
            box.store = store
            return store
        }
        return configuration
    }

    /// Runs `body` with a server (fast reads on or off) that holds `objects`, stored at `loaded`, its clock at
    /// `loaded + 10`.
    static func withServer<Result: Sendable>(
        fast: Bool,
        _ body: @Sendable (RunningMockCDN) async throws -> Result
    ) async throws -> Result {
        let box = StoreBox()
        return try await MockCDNTestServer.withRunning(Self.configuration(fast: fast, box: box)) { server in
            let store = try #require(box.store)
            for (key, type, bytes) in Self.objects {
                let buffer = ByteBuffer(bytes: bytes)
                _ = try await store.put(
                    try ObjectKey(key),
                    body: AsyncStream {
                        $0.yield(buffer)
                        $0.finish()
                    },
                    attributes: ObjectAttributes(
                        contentType: type,
                        extras: key.hasSuffix("public.txt") ? [ObjectACL.extra: "public-read"] : [:],
                        created: Date(timeIntervalSince1970: TimeInterval(Self.loaded))
                    ),
                    maxBytes: bytes.count
                )
            }
            server.setClock(to: Date(timeIntervalSince1970: TimeInterval(Self.loaded + 10)))
            return try await body(server)
        }
    }

    /// One request of the scenario, and whether it is one the fast path answers.
    struct Read: Sendable {
        let name: String
        let method: String
        let target: String
        var headers: [(String, String)] = []
        let fast: Bool
    }

    /// The scenario's reads, with credentials minted at fixed times (the same on both servers but for the
    /// host, which CloudFront and SigV4 sign).
    static func reads(authority: String, etag: String?) throws -> [Read] {
        let app = try MediaApp(.demo)
        let now = Self.loaded + 10
        let fat = FileAccessToken.issue(
            FileAccessClaims(appID: "demo", userID: "alice", issuedAt: now, expiresAt: now + 3600),
            key: app.secretKey
        )
        let expired = FileAccessToken.issue(
            FileAccessClaims(appID: "demo", userID: "alice", issuedAt: now - 7200, expiresAt: now - 3600),
            key: app.secretKey
        )
        let tampered = String(fat.dropLast(2)) + (fat.hasSuffix("AA") ? "BB" : "AA")
        let signer = CloudFrontSigner(keyPair: app.activeKeyPair)
        let base = "http://" + authority
        let canned = try signer.cannedURL(base + "/demo/fixtures/big.bin", expires: now + 3600)
        let custom = try signer.customURL(
            base + "/demo/fixtures/big.bin",
            // A policy without the port, so that both servers journal the same query.
            policy: CloudFrontPolicy(resource: "http://127.0.0.1:*/demo/fixtures/*", dateLessThan: now + 3600)
        )
        let sigV4 = SigV4.presignedURL(
            scheme: "http",
            authority: authority,
            path: "/demo/fixtures/big.bin",
            credentials: app.sigV4Credentials,
            date: now,
            expires: 3600
        )
        let fatQuery = fat.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        func target(_ url: String) -> String { String(url.dropFirst(base.count)) }
        let origin = ("Origin", "https://app.example")
        var reads = [
            Read(
                name: "FAT header",
                method: "GET",
                target: "/demo/fixtures/big.bin",
                headers: [("fat", fat)],
                fast: true
            ),
            Read(
                name: "FAT header again",
                method: "GET",
                target: "/demo/fixtures/big.bin",
                headers: [("fat", fat)],
                fast: true
            ),
            Read(
                name: "FAT header, Origin",
                method: "GET",
                target: "/demo/fixtures/big.bin",
                headers: [("fat", fat), origin],
                fast: true
            ),
            Read(name: "FAT query", method: "GET", target: "/demo/fixtures/big.bin?fat=" + fatQuery, fast: true),
            Read(name: "CloudFront canned", method: "GET", target: target(canned), fast: true),
            Read(
                name: "CloudFront custom, Origin",
                method: "GET",
                target: target(custom),
                headers: [origin],
                fast: true
            ),
            Read(name: "SigV4 presigned", method: "GET", target: target(sigV4), fast: true),
            Read(name: "SigV4 presigned again", method: "GET", target: target(sigV4), fast: true),
            Read(
                name: "HEAD, FAT",
                method: "HEAD",
                target: "/demo/fixtures/big.bin",
                headers: [("fat", fat)],
                fast: true
            ),
            Read(name: "HEAD, canned, Origin", method: "HEAD", target: target(canned), headers: [origin], fast: true),
            Read(name: "HTML", method: "GET", target: "/demo/fixtures/page.html", headers: [("fat", fat)], fast: true),
            Read(
                name: "SVG, Origin",
                method: "GET",
                target: "/demo/fixtures/icon.svg",
                headers: [("fat", fat), origin],
                fast: true
            ),
            Read(
                name: "Range",
                method: "GET",
                target: "/demo/fixtures/big.bin",
                headers: [("fat", fat), ("Range", "bytes=100-199")],
                fast: true
            ),
            Read(
                name: "Range unsatisfiable",
                method: "GET",
                target: "/demo/fixtures/big.bin",
                headers: [("fat", fat), ("Range", "bytes=999999-")],
                fast: false
            ),
            Read(
                name: "missing object",
                method: "GET",
                target: "/demo/fixtures/none.bin",
                headers: [("fat", fat)],
                fast: false
            ),
            Read(
                name: "expired FAT",
                method: "GET",
                target: "/demo/fixtures/big.bin",
                headers: [("fat", expired)],
                fast: false
            ),
            Read(
                name: "tampered FAT",
                method: "GET",
                target: "/demo/fixtures/big.bin",
                headers: [("fat", tampered)],
                fast: false
            ),
            Read(name: "no credential", method: "GET", target: "/demo/fixtures/big.bin", fast: false),
            Read(
                name: "response-* override",
                method: "GET",
                target: "/demo/fixtures/big.bin?response-content-type=text/plain&fat=" + fatQuery,
                fast: false
            ),
            Read(
                name: "Connection header",
                method: "GET",
                target: "/demo/fixtures/big.bin",
                headers: [("fat", fat), ("Connection", "keep-alive")],
                fast: false
            ),
            Read(
                name: "unknown app",
                method: "GET",
                target: "/nope/fixtures/big.bin",
                headers: [("fat", fat)],
                fast: false
            ),
            // A variant is rendered by the router; once the cache holds it, a read of it is fast.
            Read(
                name: "variant, rendered",
                method: "GET",
                target: "/demo/fixtures/photo.jpg?w=8&h=8",
                headers: [("fat", fat)],
                fast: false
            ),
            Read(
                name: "variant, cached",
                method: "GET",
                target: "/demo/fixtures/photo.jpg?w=8&h=8",
                headers: [("fat", fat), origin],
                fast: true
            ),
            Read(
                name: "variant, cached, FAT query",
                method: "GET",
                target: "/demo/fixtures/photo.jpg?h=8&fat=" + fatQuery + "&w=8",
                fast: true
            ),
            Read(
                name: "variant, cached, Range",
                method: "GET",
                target: "/demo/fixtures/photo.jpg?w=8&h=8",
                headers: [("fat", fat), ("Range", "bytes=0-9")],
                fast: true
            ),
            Read(
                name: "variant, cached, HEAD",
                method: "HEAD",
                target: "/demo/fixtures/photo.jpg?w=8&h=8",
                headers: [("fat", fat)],
                fast: true
            ),
            Read(
                name: "variant, cached, expired FAT",
                method: "GET",
                target: "/demo/fixtures/photo.jpg?w=8&h=8",
                headers: [("fat", expired)],
                fast: false
            ),
            Read(
                name: "bad width",
                method: "GET",
                target: "/demo/fixtures/photo.jpg?w=0",
                headers: [("fat", fat)],
                fast: false
            ),
            Read(
                name: "transform of no image",
                method: "GET",
                target: "/demo/fixtures/big.bin?w=8",
                headers: [("fat", fat)],
                fast: false
            ),
            // Stream's image links end with the original size, which the answer does not depend on.
            Read(
                name: "CloudFront custom, Stream's image link",
                method: "GET",
                target: target(custom) + "&oh=8&ow=8",
                fast: true
            ),
            Read(
                name: "CloudFront custom, Stream's image link, variant",
                method: "GET",
                target: target(custom).replacingOccurrences(of: "big.bin", with: "photo.jpg") + "&oh=8&ow=8&w=8&h=8",
                fast: true
            ),
            Read(
                name: "SVG with a transform, the original",
                method: "GET",
                target: "/demo/fixtures/icon.svg?w=8",
                headers: [("fat", fat)],
                fast: true
            ),
        ]
        if let etag {
            reads.append(
                Read(
                    name: "If-None-Match",
                    method: "GET",
                    target: "/demo/fixtures/big.bin",
                    headers: [("fat", fat), ("If-None-Match", etag)],
                    fast: true
                )
            )
        }
        // No credential: a public-read object is answered (on the fast path too), a private one refused.
        reads += [
            Read(name: "public-read, unsigned", method: "GET", target: "/demo/fixtures/public.txt", fast: true),
            Read(name: "public-read, unsigned HEAD", method: "HEAD", target: "/demo/fixtures/public.txt", fast: true),
            Read(
                name: "public-read, bad FAT",
                method: "GET",
                target: "/demo/fixtures/public.txt",
                headers: [("fat", tampered)],
                fast: false
            ),
            Read(name: "private, unsigned", method: "GET", target: "/demo/fixtures/big.bin", fast: false),
        ]
        return reads
    }

    /// What a server answered to the scenario, and what it journaled and counted.
    struct Observed {
        var replies: [(name: String, reply: RawReply)] = []
        var pipelined: [RawReply] = []
        var journal: [[String: String]] = []
        var counts: [String] = []
        var report = ""
        var fastReads = 0
    }

    static func observe(fast: Bool) async throws -> Observed {
        try await Self.withServer(fast: fast) { server in
            let port = try #require(server.baseURL.port)
            let authority = "127.0.0.1:\(port)"
            let first = try await RawHTTP.exchange(port: port, [try Self.reads(authority: authority, etag: nil)[0]])
            let reads = try Self.reads(authority: authority, etag: try #require(first.first?.header("etag")))
            var observed = Observed()
            // Each read on a keep-alive connection of its own, then all of them on one, one after another.
            for read in reads {
                observed.replies.append((read.name, try #require(try await RawHTTP.exchange(port: port, [read]).first)))
            }
            for (read, reply) in zip(reads, try await RawHTTP.exchange(port: port, reads)) {
                observed.replies.append((read.name + " (one connection)", reply))
            }
            // Pipelined: fast and slow reads mixed, all written at once.
            let mixed = [reads[0], reads[14], reads[6], reads[16], reads[8], reads[12], reads[10], reads[0]]
            observed.pipelined = try await RawHTTP.exchange(port: port, mixed, pipelined: true)
            let journal = try await HTTP.get(server.url("/_mockcdn/requests"))
            for entry in try #require(journal.json["requests"] as? [[String: Any]]) {
                var kept: [String: String] = [:]
                for (name, value) in entry where !["id", "clock", "received_at", "duration_ms"].contains(name) {
                    kept[name] = "\(value)"
                }
                observed.journal.append(kept)
            }
            observed.report = try await HTTP.get(server.url("/_mockcdn/report?format=markdown")).text
            observed.fastReads = try await Self.fastReadCount(server)
            observed.counts = try await HTTP.get(server.url("/metrics")).text.split(separator: "\n")
                .filter { $0.hasPrefix("mockcdn_requests_total") || $0.hasPrefix("mockcdn_credential_cache_hits") }
                .map(String.init).sorted()
            return observed
        }
    }

    static func fastReadCount(_ server: RunningMockCDN) async throws -> Int {
        let text = try await HTTP.get(server.url("/metrics")).text
        let line = text.split(separator: "\n").first { $0.hasPrefix("mockcdn_fast_reads_total ") }
        return Int(line?.split(separator: " ")[1] ?? "0") ?? 0
    }

    @Test("the same reads get the same answers, journal entries and counts with fast reads on and off")
    func equivalence() async throws {
        let fast = try await Self.observe(fast: true)
        let slow = try await Self.observe(fast: false)
        // Both answered the reads as they should, and only one of them on the fast path.
        #expect(fast.fastReads > 0)
        #expect(slow.fastReads == 0)
        let expected = [
            200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 206, 416, 404, 403, 403, 401, 200, 200, 404,
            200, 200, 200, 206, 200, 403, 400, 400, 200, 200, 200, 304,
        ]
        #expect(fast.replies.prefix(expected.count).map(\.reply.status) == expected)
        #expect(fast.replies.suffix(4).map(\.reply.status) == [200, 200, 403, 401])
        try #require(fast.replies.count == slow.replies.count)
        for ((name, fastReply), (_, slowReply)) in zip(fast.replies, slow.replies) {
            #expect(fastReply.namesItsRequest && slowReply.namesItsRequest, "\(name)")
            #expect(fastReply.status == slowReply.status, "\(name)")
            #expect(fastReply.comparableHeaders == slowReply.comparableHeaders, "\(name)")
            #expect(fastReply.comparableBody == slowReply.comparableBody, "\(name)")
        }
        try #require(fast.pipelined.count == slow.pipelined.count)
        for (index, (fastReply, slowReply)) in zip(fast.pipelined, slow.pipelined).enumerated() {
            #expect(fastReply.status == slowReply.status, "pipelined \(index)")
            #expect(fastReply.comparableHeaders == slowReply.comparableHeaders, "pipelined \(index)")
            #expect(fastReply.comparableBody == slowReply.comparableBody, "pipelined \(index)")
        }
        // Each answer, fast or not, names a request of its own.
        let ids = (fast.replies.map(\.reply) + fast.pipelined).compactMap { $0.header("x-amz-request-id") }
        #expect(ids.count == fast.replies.count + fast.pipelined.count && Set(ids).count == ids.count)
        // The pipelined answers are the answers of those reads, in order.
        let statuses = fast.pipelined.map(\.status)
        #expect(statuses == [200, 404, 200, 403, 200, 206, 200, 200])
        #expect(fast.pipelined[5].body.count == 100)
        // The journal: the same entries, but for the signatures of the host-signed links, which are redacted.
        #expect(fast.journal.count == slow.journal.count)
        for (index, (fastEntry, slowEntry)) in zip(fast.journal, slow.journal).enumerated() {
            #expect(fastEntry == slowEntry, "journal entry \(index)")
        }
        #expect(fast.counts == slow.counts)
        #expect(fast.report == slow.report)
        #expect(fast.report.contains("media."))
        #expect(!fast.counts.isEmpty)
    }

    @Test("the fast path answers exactly the reads it may, and none with fast_reads off")
    func taken() async throws {
        for enabled in [true, false] {
            try await Self.withServer(fast: enabled) { server in
                let port = try #require(server.baseURL.port)
                let reads = try Self.reads(authority: "127.0.0.1:\(port)", etag: "\"x\"")
                let before = try await Self.fastReadCount(server)
                for read in reads {
                    _ = try await RawHTTP.exchange(port: port, [read])
                }
                let taken = try await Self.fastReadCount(server) - before
                // An If-None-Match that does not match is a plain 200: fast too.
                #expect(taken == (enabled ? reads.filter(\.fast).count : 0), "fast_reads \(enabled)")
                // A fault rule sends every read back through the router.
                let rule = try await HTTP.send(
                    "POST",
                    server.url("/_mockcdn/faults"),
                    body: Data(#"{"match":{"path":"/nothing/"},"action":{"status":500}}"#.utf8)
                )
                try #require(rule.status == 201, "\(rule.text)")
                let armed = try await Self.fastReadCount(server)
                _ = try await RawHTTP.exchange(port: port, [reads[0]])
                #expect(try await Self.fastReadCount(server) == armed)
            }
        }
    }
}

extension FastReadTests {
    @Test("a connection busy with fast reads is not idle, and an idle one still closes at the idle timeout")
    func idleTimeout() async throws {
        var configuration = Self.configuration(fast: true)
        configuration.idleTimeoutSeconds = 1
        let box = StoreBox()
        configuration.storeWrapper = { store in
            box.store = store
            return store
        }
        try await MockCDNTestServer.withRunning(configuration) { server in
            let store = try #require(box.store)
            let bytes = ByteBuffer(string: "tiny")
            _ = try await store.put(
                try ObjectKey("demo/fixtures/tiny.txt"),
                body: AsyncStream {
                    $0.yield(bytes)
                    $0.finish()
                },
                attributes: ObjectAttributes(contentType: "text/plain"),
                maxBytes: 4
            )
            let app = try MediaApp(.demo)
            let now = server.clock.unixSeconds
            let fat = FileAccessToken.issue(
                FileAccessClaims(appID: "demo", userID: "alice", issuedAt: now, expiresAt: now + 3600),
                key: app.secretKey
            )
            let read = Read(
                name: "tiny",
                method: "GET",
                target: "/demo/fixtures/tiny.txt",
                headers: [("fat", fat)],
                fast: true
            )
            let port = try #require(server.baseURL.port)
            let before = try await Self.fastReadCount(server)
            // Fifteen reads 0.1 s apart (a tenth of the idle timeout): 1.4 s on a connection whose idle timeout
            // is 1 s. Then up to 10 s (ten times the timeout) for the server to close the idle connection; the
            // wait ends as soon as it does.
            let (replies, closed) = try await RawHTTP.paced(
                port: port,
                Array(repeating: read, count: 15),
                pause: 0.1,
                idle: 10
            )
            #expect(replies.map(\.status) == Array(repeating: 200, count: 15))
            #expect(try await Self.fastReadCount(server) == before + 15)
            #expect(closed, "an idle connection is closed after the idle timeout")
        }
    }
}

/// An answer read off a raw socket.
struct RawReply: Sendable {
    let status: Int
    /// In the order they came, names lowercased.
    let headers: [(name: String, value: String)]
    let body: Data

    func header(_ name: String) -> String? { self.headers.first { $0.name == name }?.value }

    /// The body, but the request ids of an S3 error, which are the request's own.
    var comparableBody: Data {
        guard self.status >= 400 else { return self.body }
        let text = String(decoding: self.body, as: UTF8.self)
        return Data(
            text.replacing(/<RequestId>[^<]*<\/RequestId>/, with: "<RequestId/>")
                .replacing(/<HostId>[^<]*<\/HostId>/, with: "<HostId/>").utf8
        )
    }

    /// Every header but `Date`, in order; S3's request ids by name only, since each request has its own.
    var comparableHeaders: [String] {
        self.headers.filter { $0.name != "date" }.map {
            ["x-amz-request-id", "x-amz-id-2"].contains($0.name) ? $0.name : $0.name + ": " + $0.value
        }
    }

    /// Whether the answer names its request as S3 does: `x-amz-request-id`, `x-amz-id-2` its base64, and an
    /// error's `<RequestId>` and `<HostId>` the same.
    var namesItsRequest: Bool {
        guard let id = self.header("x-amz-request-id"), !id.isEmpty,
            self.header("x-amz-id-2") == Data(id.utf8).base64EncodedString()
        else { return false }
        guard self.status >= 400, !self.body.isEmpty else { return true }
        let text = String(decoding: self.body, as: UTF8.self)
        return text.contains("<RequestId>\(id)</RequestId><HostId>\(Data(id.utf8).base64EncodedString())</HostId>")
    }
}

/// HTTP/1.1 over a plain socket: requests written exactly as given (no header a client library adds), one
/// after another or all at once (pipelined), on one keep-alive connection.
enum RawHTTP {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The answers to `reads`, read on a thread of their own: a blocking read on one of Swift's cooperative
    /// threads, of which a small machine has two, could starve the server it waits for.
    static func exchange(port: Int, _ reads: [FastReadTests.Read], pipelined: Bool = false) async throws -> [RawReply] {
        try await outsidePool { try Self.blockingExchange(port: port, reads, pipelined: pipelined).replies }
    }

    /// The answers to `reads` sent one at a time, `pause` seconds apart, on one connection; then whether the
    /// server closed that connection within `idle` seconds of the last answer.
    static func paced(
        port: Int,
        _ reads: [FastReadTests.Read],
        pause: TimeInterval,
        idle: TimeInterval
    ) async throws -> (replies: [RawReply], closed: Bool) {
        try await outsidePool {
            let (replies, closed) = try Self.blockingExchange(
                port: port,
                reads,
                pipelined: false,
                pause: pause,
                idle: idle
            )
            return (replies, closed ?? false)
        }
    }

    static func blockingExchange(
        port: Int,
        _ reads: [FastReadTests.Read],
        pipelined: Bool,
        pause: TimeInterval = 0,
        idle: TimeInterval? = nil
    ) throws -> (replies: [RawReply], closed: Bool?) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect") }
        var buffer = Data()
        func text(_ read: FastReadTests.Read) -> Data {
            var head = "\(read.method) \(read.target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            for (name, value) in read.headers { head += "\(name): \(value)\r\n" }
            return Data((head + "\r\n").utf8)
        }
        func send(_ data: Data) throws {
            let sent = data.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, 0) }
            guard sent == data.count else { throw Failure(description: "send") }
        }
        func receive(head: Bool) throws -> RawReply {
            while true {
                if let reply = try Self.parse(&buffer, head: head) { return reply }
                var chunk = [UInt8](repeating: 0, count: 65536)
                let count = recv(socket, &chunk, chunk.count, 0)
                guard count > 0 else { throw Failure(description: "connection ended after \(buffer.count) bytes") }
                buffer.append(contentsOf: chunk[..<count])
            }
        }
        var replies: [RawReply] = []
        if pipelined {
            try send(reads.reduce(Data()) { $0 + text($1) })
            for read in reads { replies.append(try receive(head: read.method == "HEAD")) }
        } else {
            for read in reads {
                if pause > 0, !replies.isEmpty { Thread.sleep(forTimeInterval: pause) }
                try send(text(read))
                replies.append(try receive(head: read.method == "HEAD"))
            }
        }
        guard let idle else { return (replies, nil) }
        var wait = timeval(tv_sec: Int(idle), tv_usec: Int((idle - idle.rounded(.down)) * 1e6))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var byte: UInt8 = 0
        // 0: the server closed it; -1: the wait ran out with the connection open.
        return (replies, recv(socket, &byte, 1, 0) == 0)
    }

    /// One whole answer off the front of `buffer`, or nil when more bytes are needed.
    static func parse(_ buffer: inout Data, head isHead: Bool) throws -> RawReply? {
        guard let end = buffer.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let lines = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
            .components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "status line \(lines[0])")
        }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            )
        }
        let length =
            isHead || status == 304 || status == 204
            ? 0 : Int(headers.first { $0.0 == "content-length" }?.1 ?? "0") ?? 0
        guard buffer.count - (end.upperBound - buffer.startIndex) >= length else { return nil }
        let body = buffer[end.upperBound..<(end.upperBound + length)]
        let reply = RawReply(status: status, headers: headers, body: Data(body))
        buffer = Data(buffer[(end.upperBound + length)...])
        return reply
    }
}
