import Foundation
import Logging
import MockCDNTesting
import Testing

@testable import MockCDNServer

/// The control routes answer only a request that names one well-formed host (`AuthorityCheck`), and the
/// guarded ones only when that host is one DNS rebinding cannot produce (`AdminGuard`): written on a raw
/// socket, since no HTTP library sends two `Host` headers or an absolute-form target to a server.
@Suite("Host guard")
struct HostGuardTests {
    /// The public URL the server is started with: its host is accepted as the server's own.
    static let publicURL = "http://cdn.example:9999"

    /// A fault rule, the body of the refused writes: it must not be stored.
    static let rule = #"{"match":{"path":"/never/"},"action":{"status":503}}"#

    /// One request, by what it sends; the port is the server's.
    struct Case: Sendable, CustomStringConvertible {
        let description: String
        let method: String
        let target: @Sendable (Int) -> String
        let hosts: @Sendable (Int) -> [String]
        /// The status and a phrase of the message it is refused with, or its status when it passes.
        let status: Int
        let message: String

        /// The request as written, a POST carrying `HostGuardTests.rule`.
        func text(port: Int) -> String {
            var head = "\(self.method) \(self.target(port)) HTTP/1.1\r\n"
            for host in self.hosts(port) { head += "Host: \(host)\r\n" }
            guard self.method == "POST" else { return head + "\r\n" }
            let body = HostGuardTests.rule
            return head + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        }
    }

    static let malformed = "the Host header is not host[:port]"
    static let several = "one Host header, not several"
    static let otherTarget = "an absolute-form request target must name the host and port the Host header names"
    static let notThisServer = "the test-control API answers only on"

    /// Requests refused, each with its status and message.
    static let refused: [Case] = [
        Case(
            description: "a port followed by user info and another host",
            method: "POST",
            target: { _ in "/_mockcdn/faults" },
            hosts: { ["127.0.0.1:\($0)@evil.example"] },
            status: 400,
            message: malformed
        ),
        Case(
            description: "text after an IPv6 literal's bracket",
            method: "POST",
            target: { _ in "/_mockcdn/faults" },
            hosts: { _ in ["[::1].evil"] },
            status: 400,
            message: malformed
        ),
        Case(
            description: "user info before the host",
            method: "POST",
            target: { _ in "/_mockcdn/faults" },
            hosts: { ["evil.example@127.0.0.1:\($0)"] },
            status: 400,
            message: malformed
        ),
        Case(
            description: "a port that is not digits",
            method: "POST",
            target: { _ in "/_mockcdn/faults" },
            hosts: { ["127.0.0.1:\($0)x"] },
            status: 400,
            message: malformed
        ),
        Case(
            description: "an unbracketed IPv6 address",
            method: "POST",
            target: { _ in "/_mockcdn/faults" },
            hosts: { _ in ["::1"] },
            status: 400,
            message: malformed
        ),
        Case(
            description: "two Host headers, the second another host",
            method: "POST",
            target: { _ in "/_mockcdn/faults" },
            hosts: { ["127.0.0.1:\($0)", "evil.example"] },
            status: 400,
            message: several
        ),
        Case(
            description: "two Host headers, both the same",
            method: "POST",
            target: { _ in "/_mockcdn/faults" },
            hosts: { ["127.0.0.1:\($0)", "127.0.0.1:\($0)"] },
            status: 400,
            message: several
        ),
        Case(
            description: "an absolute-form target naming another host than Host",
            method: "POST",
            target: { _ in "http://evil.example/_mockcdn/faults" },
            hosts: { ["127.0.0.1:\($0)"] },
            status: 400,
            message: otherTarget
        ),
        Case(
            description: "an absolute-form target naming another port than Host",
            method: "POST",
            target: { _ in "http://127.0.0.1:1/_mockcdn/faults" },
            hosts: { ["127.0.0.1:\($0)"] },
            status: 400,
            message: otherTarget
        ),
        Case(
            description: "an absolute-form target with user info",
            method: "POST",
            target: { "http://127.0.0.1:\($0)@evil.example/_mockcdn/faults" },
            hosts: { ["127.0.0.1:\($0)"] },
            status: 400,
            message: otherTarget
        ),
        Case(
            description: "an absolute-form target of another scheme",
            method: "POST",
            target: { "ftp://127.0.0.1:\($0)/_mockcdn/faults" },
            hosts: { ["127.0.0.1:\($0)"] },
            status: 400,
            message: otherTarget
        ),
        Case(
            description: "an absolute-form target and Host both naming another host",
            method: "POST",
            target: { _ in "http://evil.example/_mockcdn/faults" },
            hosts: { _ in ["evil.example"] },
            status: 400,
            message: notThisServer
        ),
        Case(
            description: "no Host at all",
            method: "POST",
            target: { _ in "/_mockcdn/faults" },
            hosts: { _ in [] },
            status: 400,
            message: "the test-control API needs a Host header"
        ),
        Case(
            description: "a rebinding name (refused as before)",
            method: "POST",
            target: { _ in "/_mockcdn/faults" },
            hosts: { ["evil.example:\($0)"] },
            status: 403,
            message: notThisServer
        ),
        Case(
            description: "a reg-name that is no DNS name, ending in .localhost",
            method: "POST",
            target: { _ in "/_mockcdn/faults" },
            hosts: { _ in ["evil.example,.localhost"] },
            status: 403,
            message: notThisServer
        ),
        // Health answers on any well-formed name, but not a request that names two hosts.
        Case(
            description: "health by an absolute-form target naming another host than Host",
            method: "GET",
            target: { _ in "http://evil.example/_mockcdn/health" },
            hosts: { ["127.0.0.1:\($0)"] },
            status: 400,
            message: otherTarget
        ),
        Case(
            description: "health with two Host headers",
            method: "GET",
            target: { _ in "/_mockcdn/health" },
            hosts: { ["127.0.0.1:\($0)", "evil.example"] },
            status: 400,
            message: several
        ),
        Case(
            description: "health with a port followed by another host",
            method: "GET",
            target: { _ in "/_mockcdn/health" },
            hosts: { ["127.0.0.1:\($0)@evil.example"] },
            status: 400,
            message: malformed
        ),
    ]

    /// Requests that pass, each with its status.
    static let accepted: [Case] = [
        Case(
            description: "IPv4 and the port",
            method: "GET",
            target: { _ in "/_mockcdn/clock" },
            hosts: { ["127.0.0.1:\($0)"] },
            status: 200,
            message: ""
        ),
        Case(
            description: "localhost",
            method: "GET",
            target: { _ in "/_mockcdn/clock" },
            hosts: { ["localhost:\($0)"] },
            status: 200,
            message: ""
        ),
        Case(
            description: "IPv6 loopback",
            method: "GET",
            target: { _ in "/_mockcdn/clock" },
            hosts: { ["[::1]:\($0)"] },
            status: 200,
            message: ""
        ),
        Case(
            description: "IPv6 loopback written long",
            method: "GET",
            target: { _ in "/_mockcdn/clock" },
            hosts: { ["[0:0:0:0:0:0:0:1]:\($0)"] },
            status: 200,
            message: ""
        ),
        Case(
            description: "the Android emulator's address of the host",
            method: "GET",
            target: { _ in "/_mockcdn/clock" },
            hosts: { ["10.0.2.2:\($0)"] },
            status: 200,
            message: ""
        ),
        Case(
            description: "the public URL's host",
            method: "GET",
            target: { _ in "/_mockcdn/clock" },
            hosts: { _ in ["cdn.example:9999"] },
            status: 200,
            message: ""
        ),
        Case(
            description: "a virtual-hosted bucket under localhost",
            method: "GET",
            target: { _ in "/_mockcdn/clock" },
            hosts: { ["demo.localhost:\($0)"] },
            status: 200,
            message: ""
        ),
        Case(
            description: "an absolute-form target naming the Host",
            method: "GET",
            target: { "http://127.0.0.1:\($0)/_mockcdn/clock" },
            hosts: { ["127.0.0.1:\($0)"] },
            status: 200,
            message: ""
        ),
        Case(
            description: "an absolute-form target naming the Host in capitals, its default port left out",
            method: "GET",
            target: { _ in "HTTP://LOCALHOST/_mockcdn/clock" },
            hosts: { _ in ["localhost:80"] },
            status: 200,
            message: ""
        ),
        Case(
            description: "health on a container's name",
            method: "GET",
            target: { _ in "/_mockcdn/health" },
            hosts: { _ in ["mockcdn_1:8080"] },
            status: 200,
            message: ""
        ),
        Case(
            description: "a write with IPv4 and the port",
            method: "POST",
            target: { _ in "/_mockcdn/faults" },
            hosts: { ["127.0.0.1:\($0)"] },
            status: 201,
            message: ""
        ),
    ]

    /// A server with `publicURL`, for `body`.
    static func withServer(_ body: @Sendable (RunningMockCDN, Int) async throws -> Void) async throws {
        var configuration = ServerConfiguration(logLevel: .warning)
        configuration.publicURL = Self.publicURL
        try await MockCDNTestServer.withRunning(configuration) { server in
            try await body(server, try #require(server.baseURL.port))
        }
    }

    /// The fault rules the server holds, read with an ordinary client.
    static func faults(_ server: RunningMockCDN) async throws -> [[String: Any]] {
        let listed = try await HTTP.get(server.url("/_mockcdn/faults"))
        return listed.json["faults"] as? [[String: Any]] ?? []
    }

    @Test("a request that names no single well-formed host, or another one, is refused in the control envelope")
    func refusals() async throws {
        try await Self.withServer { server, port in
            for refusal in Self.refused {
                let reply = try #require(try await RawSocket.exchange(port: port, [refusal.text(port: port)]).first)
                #expect(reply.status == refusal.status, "\(refusal)")
                #expect(reply.header("content-type")?.hasPrefix("application/json") == true, "\(refusal)")
                let envelope = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any]
                let message = (envelope?["error"] as? [String: Any])?["message"] as? String
                #expect(message?.contains(refusal.message) == true, "\(refusal): \(message ?? "no message")")
                // The message repeats nothing the client sent.
                #expect(message?.contains("evil") == false, "\(refusal)")
            }
            // None of the refused writes stored its rule.
            #expect(try await Self.faults(server).isEmpty)
        }
    }

    @Test("IPv4, localhost, IPv6, the public URL's host, a bucket under localhost and matching targets pass")
    func accepted() async throws {
        try await Self.withServer { server, port in
            for acceptance in Self.accepted {
                let reply = try #require(try await RawSocket.exchange(port: port, [acceptance.text(port: port)]).first)
                #expect(
                    reply.status == acceptance.status,
                    "\(acceptance): \(String(decoding: reply.body, as: UTF8.self))"
                )
            }
            // The one write that passed stored its rule, once.
            #expect(try await Self.faults(server).count == 1)
        }
    }

    @Test(
        "HostAuthority reads RFC 3986's host[:port] and nothing else",
        arguments: [
            ("localhost", true), ("LocalHost:8080", true), ("127.0.0.1", true), ("[::1]:1", true), ("a-b_c.d", true),
            ("host:", true), ("%41b", true), ("", true), ("a:b", false), ("a:1:2", false), ("[::1", false),
            ("[::1]x", false), ("[fe80::1%25eth0]", false), ("[v1.x]", false), ("a b", false), ("a/b", false),
            ("a@b", false), ("a:123456", false), ("%4", false), ("é.example", false),
        ]
    )
    func authorityGrammar(value: String, wellFormed: Bool) {
        #expect((HostAuthority(value) != nil) == wellFormed)
    }

    @Test("hosts are compared canonically: case, IPv6 spelling and the scheme's default port")
    func authorityComparison() throws {
        let long = try #require(HostAuthority("[0:0:0:0:0:0:0:1]:80"))
        #expect(long.isSame(as: try #require(HostAuthority("[::1]")), defaultPort: 80))
        #expect(!long.isSame(as: try #require(HostAuthority("[::1]")), defaultPort: 443))
        #expect(try #require(HostAuthority("LOCALHOST")).host == .name("localhost"))
        #expect(try #require(HostAuthority("127.0.0.1:8080")).host == .ipv4("127.0.0.1"))
        // Leading zeros make a name, not an address (inet_pton's reading, and RFC 3986's).
        #expect(try #require(HostAuthority("127.000.0.1")).host == .name("127.000.0.1"))
        let target = try #require(HostAuthority.ofTarget("HTTPS://Cdn.Example"))
        #expect(target.defaultPort == 443 && target.authority.host == .name("cdn.example"))
        #expect(HostAuthority.ofTarget("ws://localhost") == nil)
    }
}
