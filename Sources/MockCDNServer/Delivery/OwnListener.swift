import Foundation
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MockCDN's own listener, as a delivery target's URL could name it: a notification target or a vendor webhook
/// pointing at MockCDN's control routes (`http://127.0.0.1:PORT/_mockcdn/reset`) would have every upload drive
/// the server under test (reset it, move its clock), so such a target is refused where it comes in.
///
/// A URL names the listener when its host and port are
/// - the port MockCDN is bound to (the configured one until the server is up, then the real one, which port 0
///   makes up), with a host that reaches this machine as written: `localhost` and any `*.localhost` name (RFC
///   6761), the loopback names Debian's `/etc/hosts` gives (`localhost.localdomain`, `ip6-localhost`,
///   `ip6-loopback`), this machine's host name, the bound host, any address in 127.0.0.0/8 in any form the
///   resolver takes (`127.1`, `2130706433`, `0x7f.0.0.1`), `0.0.0.0` and `::` (which connect to this machine),
///   `::1`, an IPv4-mapped form of one of those, or an address of one of this machine's interfaces;
/// - or the public URL's (`--public-url`), whatever its host.
///
/// Names are compared as written, never resolved: a name that only DNS points at this machine is not caught
/// (a target's name may not resolve yet when it is configured, as in a compose file whose worker starts
/// later). Only the control prefix is refused: a target on MockCDN's own listener outside `/_mockcdn` (a test
/// pointing a webhook at a media path, to see the delivery in the request journal) is taken, since a delivery
/// is a JSON POST that no upload or write route accepts.
final class OwnListener: Sendable {
    /// The first segment of the control routes (`TestControl.prefix`, which `Shared/` does not name).
    static let controlPrefix = "_mockcdn"

    /// The public URL's host (as `normalized` gives it) and port.
    private let publicOrigin: (host: String, port: Int)?
    /// The bound host, normalised.
    private let boundHost: String
    /// Names that reach this machine as written.
    private let localNames: Set<String>
    /// This machine's interface addresses: 4 bytes for IPv4, 16 for IPv6.
    private let localAddresses: Set<[UInt8]>
    /// The port: the configured one, then the bound one.
    private let port: Atomic<Int>

    /// The listener a server configured so will have.
    ///
    /// - Parameters:
    ///   - host: the address to bind.
    ///   - port: the configured port (0 until the server is bound picks one).
    ///   - publicURL: `--public-url`, when set.
    init(host: String, port: Int, publicURL: String?) {
        self.boundHost = Self.normalized(host)
        self.port = Atomic(port)
        self.publicOrigin = publicURL.flatMap { URL(string: $0) }.flatMap { url in
            url.host.map { (Self.normalized($0), url.port ?? Self.defaultPort(of: url)) }
        }
        var names: Set<String> = ["localhost.localdomain", "ip6-localhost", "ip6-loopback"]
        var buffer = [CChar](repeating: 0, count: 256)
        if gethostname(&buffer, buffer.count - 1) == 0 {
            let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !name.isEmpty { names.insert(Self.normalized(name)) }
        }
        self.localNames = names
        let devices = (try? System.enumerateDevices()) ?? []
        self.localAddresses = Set(devices.compactMap { $0.address?.ipAddress.flatMap(Self.addressBytes) })
    }

    /// Learns the real port once the server is bound.
    ///
    /// - Parameter port: the bound port.
    func bound(port: Int) {
        self.port.store(port, ordering: .relaxed)
    }

    /// Why a delivery target may not be `url`: it reaches MockCDN's own control routes.
    ///
    /// - Parameters:
    ///   - url: the target's URL, as configured.
    ///   - member: how the refusal names the member (`webhooks: url`, `webhook_url`).
    /// - Returns: the refusal, naming the member and the URL (without its query or user); nil for any other
    ///   target.
    func refusal(of url: String, member: String) -> String? {
        guard let parsed = URL(string: url), let host = parsed.host, self.names(host, port: Self.port(of: parsed)),
            Self.isControl(path: parsed.path)
        else { return nil }
        let shown =
            "\(parsed.scheme ?? "http")://\(host.contains(":") ? "[\(host)]" : host):\(Self.port(of: parsed))"
            + parsed.path
        return "\(member) \(shown.prefix(200)) is MockCDN's own control route (/\(Self.controlPrefix)/...): a "
            + "delivery there would drive this server (reset it, move its clock); point the target at your receiver"
    }

    /// Whether `host` and `port` reach this listener.
    private func names(_ host: String, port: Int) -> Bool {
        let host = Self.normalized(host)
        if let origin = self.publicOrigin, origin.host == host, origin.port == port { return true }
        guard port == self.port.load(ordering: .relaxed) else { return false }
        if host == "localhost" || host.hasSuffix(".localhost") || host == self.boundHost
            || self.localNames.contains(host)
        {
            return true
        }
        guard let address = Self.addressBytes(host) else { return false }
        return Self.isLoopbackOrAny(address) || self.localAddresses.contains(address)
    }

    /// Whether a path, as a server reads it (percent-decoded once, dot segments resolved, empty segments
    /// dropped), starts with the control prefix; its case is not trusted either.
    static func isControl(path: String) -> Bool {
        let decoded = path.removingPercentEncoding ?? path
        var segments: [Substring] = []
        for segment in decoded.split(separator: "/") {
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        return segments.first?.lowercased() == Self.controlPrefix
    }

    /// A host as compared: lower case, percent-decoded, without brackets, an IPv6 zone or a trailing dot.
    static func normalized(_ host: String) -> String {
        var host = (host.removingPercentEncoding ?? host).lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.contains(":"), let zone = host.firstIndex(of: "%") { host = String(host[..<zone]) }
        while host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// The port a URL connects to: its own, else its scheme's.
    private static func port(of url: URL) -> Int {
        url.port ?? Self.defaultPort(of: url)
    }

    private static func defaultPort(of url: URL) -> Int {
        url.scheme?.lowercased() == "https" ? 443 : 80
    }

    /// A numeric host's address bytes, read as the resolver reads it: IPv4 in any `inet_aton` form (`127.1`,
    /// `0x7f000001`), IPv6 in any `inet_pton` form; nil for a name.
    static func addressBytes(_ host: String) -> [UInt8]? {
        let host = Self.normalized(host)
        var v4 = in_addr()
        if !host.contains(":"), inet_aton(host, &v4) != 0 {
            return withUnsafeBytes(of: v4.s_addr) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    /// 127.0.0.0/8, 0.0.0.0, `::1`, `::`, and their IPv4-mapped forms (`::ffff:127.0.0.1`).
    static func isLoopbackOrAny(_ address: [UInt8]) -> Bool {
        if address.count == 4 { return address[0] == 127 || address.allSatisfy { $0 == 0 } }
        guard address.count == 16 else { return false }
        if address[..<15].allSatisfy({ $0 == 0 }), address[15] <= 1 { return true }
        let mapped = address[..<10].allSatisfy { $0 == 0 } && address[10] == 0xFF && address[11] == 0xFF
        return mapped && Self.isLoopbackOrAny(Array(address[12...]))
    }
}
