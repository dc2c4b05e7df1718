import MockCDNCore
import Testing

@testable import MockCDNServer

@Suite("Virtual hosts: the app a Host names")
struct VirtualHostTests {
    @Test(
        "the first label names an app when it is one and more labels follow; a port is ignored",
        arguments: [
            ("demo.localhost", "demo"), ("demo.localhost:8080", "demo"), ("demo.s3.example.com:443", "demo"),
            ("localhost:8080", nil), ("demo", nil), ("demo:8080", nil), ("other.localhost", nil),
            ("127.0.0.1:8080", nil), ("[::1]:8080", nil), (":demo.localhost", nil), (":8080", nil), ("", nil),
        ] as [(String, String?)]
    )
    func appOfHost(authority: String, app: String?) throws {
        let apps = try AppRegistry([.demo], reserving: [])
        #expect(VirtualHost.app(named: authority, in: apps) == app)
    }
}
