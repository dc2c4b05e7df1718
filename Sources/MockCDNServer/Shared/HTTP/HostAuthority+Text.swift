import Foundation

/// Authorities as text, the way links are signed for them and requests arrive with them.
extension HostAuthority {
    /// `host:port` of a base URL as clients send it in `Host` (CometChat's `SECURED_MEDIA_HOST`): a default
    /// port (80, 443) is left out, as browsers, curl and botocore leave it out.
    static func of(_ base: String) -> String {
        guard let start = base.range(of: "://")?.upperBound else { return base }
        return Self.withoutDefaultPort(String(base[start...].prefix { $0 != "/" }))
    }

    /// `authority` without a trailing `:80` or `:443`.
    static func withoutDefaultPort(_ authority: String) -> String {
        for port in [":80", ":443"] where authority.hasSuffix(port) { return String(authority.dropLast(port.count)) }
        return authority
    }

    /// A `Host` value that can stand in a URL as it is: a name, IPv4 or bracketed IPv6, and an optional port.
    static func isPlain(_ authority: String) -> Bool {
        guard (1...255).contains(authority.utf8.count) else { return false }
        return authority.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"),
                UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "_"):
                true
            default: false
            }
        }
    }
}
