import Foundation
import NIOCore
import Testing

@testable import MockCDNServer

/// Which delivery targets name MockCDN's own control routes (`OwnListener`): every way a URL can reach the
/// listener as written (loopback names and addresses in the resolver's forms, the machine's own names and
/// addresses, the public URL) with a path a server reads as `/_mockcdn/...`; and what it says.
@Suite("A delivery target on MockCDN's own listener and control prefix is named as such")
struct OwnListenerTests {
    static let listener = OwnListener(host: "127.0.0.1", port: 8080, publicURL: "https://cdn.example.test")

    @Test(
        "own listener and control prefix: refused",
        arguments: [
            "http://127.0.0.1:8080/_mockcdn/reset",
            "https://127.0.0.1:8080/_mockcdn/reset",
            "http://localhost:8080/_mockcdn/reset",
            "http://LOCALHOST.:8080/_mockcdn/clock",
            "http://demo.localhost:8080/_mockcdn/reset",
            "http://localhost.localdomain:8080/_mockcdn/reset",
            "http://ip6-localhost:8080/_mockcdn/reset",
            "http://[::1]:8080/_mockcdn/reset",
            "http://[::ffff:127.0.0.1]:8080/_mockcdn/reset",
            "http://[0:0:0:0:0:0:0:1]:8080/_mockcdn/reset",
            "http://127.1:8080/_mockcdn/reset",
            "http://127.255.255.254:8080/_mockcdn/reset",
            "http://2130706433:8080/_mockcdn/reset",
            "http://0x7f.0.0.1:8080/_mockcdn/reset",
            "http://0177.0.0.1:8080/_mockcdn/reset",
            "http://0.0.0.0:8080/_mockcdn/reset",
            "http://0:8080/_mockcdn/reset",
            "http://[::]:8080/_mockcdn/reset",
            "http://127.0.0.1:8080/_mockcdn",
            "http://127.0.0.1:8080/%5Fmockcdn/reset",
            "http://127.0.0.1:8080/%5fMOCKCDN/reset",
            "http://127.0.0.1:8080//_mockcdn/reset",
            "http://127.0.0.1:8080/./_mockcdn/reset",
            "http://127.0.0.1:8080/demo/../_mockcdn/reset",
            "http://127.0.0.1:8080/demo/%2e%2e/_mockcdn/reset",
            "http://user:pass@127.0.0.1:8080/_mockcdn/reset?token=x#y",
            "https://cdn.example.test/_mockcdn/reset",
            "https://CDN.example.test.:443/_mockcdn/faults",
        ]
    )
    func refused(url: String) {
        #expect(Self.listener.refusal(of: url, member: "url") != nil, "\(url)")
    }

    @Test(
        "another listener, or a path outside the control prefix: taken",
        arguments: [
            "http://127.0.0.1:8080/demo/hooks",
            "http://127.0.0.1:8080/_mockcdnx/reset",
            "http://127.0.0.1:8080/demo/_mockcdn/reset",
            "http://127.0.0.1:8080/hooks?next=/_mockcdn/reset",
            "http://127.0.0.1:8081/_mockcdn/reset",
            "http://localhost/_mockcdn/reset",
            "http://cdn.example.test/_mockcdn/reset",
            "https://cdn.example.test:8443/_mockcdn/reset",
            "http://192.0.2.10:8080/_mockcdn/reset",
            "http://receiver.test:8080/_mockcdn/reset",
            "http://localhost.receiver.test:8080/_mockcdn/reset",
        ]
    )
    func taken(url: String) {
        #expect(Self.listener.refusal(of: url, member: "url") == nil, "\(url)")
    }

    @Test("the refusal names the member and the URL, without its user, password or query")
    func words() {
        #expect(
            Self.listener.refusal(
                of: "http://user:secret@127.0.0.1:8080/demo/../_mockcdn/reset?token=abc",
                member: "webhooks: url"
            )
                == "webhooks: url http://127.0.0.1:8080/demo/../_mockcdn/reset is MockCDN's own control route "
                + "(/_mockcdn/...): a delivery there would drive this server (reset it, move its clock); point "
                + "the target at your receiver"
        )
        #expect(OwnListener.controlPrefix == TestControl.prefix)
    }

    @Test("port 0 becomes the bound port once the server listens")
    func boundPort() {
        let listener = OwnListener(host: "127.0.0.1", port: 0, publicURL: nil)
        #expect(listener.refusal(of: "http://127.0.0.1:41234/_mockcdn/reset", member: "url") == nil)
        listener.bound(port: 41234)
        #expect(listener.refusal(of: "http://127.0.0.1:41234/_mockcdn/reset", member: "url") != nil)
        #expect(listener.refusal(of: "http://127.0.0.1:0/_mockcdn/reset", member: "url") == nil)
    }

    @Test("this machine's own host name and interface addresses reach it")
    func machine() throws {
        var buffer = [CChar](repeating: 0, count: 256)
        try #require(gethostname(&buffer, buffer.count - 1) == 0)
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(Self.listener.refusal(of: "http://\(name):8080/_mockcdn/reset", member: "url") != nil, "\(name)")
        let addresses = try System.enumerateDevices().compactMap { $0.address?.ipAddress }
        for address in addresses where !address.contains("%") {
            let host = address.contains(":") ? "[\(address)]" : address
            #expect(Self.listener.refusal(of: "http://\(host):8080/_mockcdn/reset", member: "url") != nil, "\(host)")
        }
    }

    @Test("a listener bound to a name takes that name as its own")
    func boundName() {
        let listener = OwnListener(host: "mockcdn.internal", port: 9000, publicURL: nil)
        #expect(listener.refusal(of: "http://mockcdn.internal:9000/_mockcdn/reset", member: "url") != nil)
        #expect(listener.refusal(of: "http://mockcdn.internal:9001/_mockcdn/reset", member: "url") == nil)
    }
}
