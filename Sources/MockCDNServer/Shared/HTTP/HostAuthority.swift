import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `Host` value, or the authority of an absolute-form request target, read by RFC 9110's `uri-host [ ":"
/// port ]` (RFC 3986's grammar): the host a reg-name, an IPv4 address or a bracketed IPv6 literal, then
/// optionally `:` and digits. Anything else (user info, a second host after `@`, text after `]`, a port that
/// is not digits) is no authority at all.
struct HostAuthority: Equatable {
    /// What the host part names.
    enum Host: Equatable {
        /// A reg-name, lower-cased (`localhost`, `demo.localhost`, `cdn.example`).
        case name(String)
        /// A dotted-quad IPv4 address, as written.
        case ipv4(String)
        /// An IPv6 address, without its brackets, in its canonical text.
        case ipv6(String)
    }

    /// The most digits a port may have: 65535 has five, and a longer run of digits is no port a client uses.
    static let maximumPortDigits = 5

    let host: Host
    /// The port's digits, or nil when there is no `:` (an empty port, `host:`, is nil too, as RFC 3986 reads it).
    let port: Int?

    /// Reads `value` as `host[:port]`.
    ///
    /// - Parameters:
    ///   - value: a `Host` header's value or a target's authority, as sent.
    /// - Returns: nil when `value` is not `host[:port]` by the grammar.
    init?(_ value: some StringProtocol) {
        let text = Substring(value)
        let hostPart: Substring
        let rest: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            rest = text[text.index(after: close)...]
            guard let address = Self.ipv6(hostPart) else { return nil }
            self.host = .ipv6(address)
        } else {
            // A reg-name holds no colon, so the first one starts the port.
            let colon = text.firstIndex(of: ":") ?? text.endIndex
            hostPart = text[..<colon]
            rest = text[colon...]
            guard Self.isRegName(hostPart) else { return nil }
            self.host = Self.isIPv4(hostPart) ? .ipv4(String(hostPart)) : .name(hostPart.lowercased())
        }
        if rest.isEmpty {
            self.port = nil
            return
        }
        let digits = rest.dropFirst()
        guard rest.first == ":", digits.count <= Self.maximumPortDigits,
            digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        self.port = digits.isEmpty ? nil : Int(digits)
    }

    /// The authority of an absolute-form target's `scheme://authority` (`RequestTargetNote`), with the port
    /// its scheme means when it names none.
    ///
    /// - Parameters:
    ///   - schemeAndAuthority: `http://host[:port]` or `https://host[:port]`, the scheme in any case.
    /// - Returns: nil for another scheme, or an authority that is not `host[:port]` (user info included).
    static func ofTarget(_ schemeAndAuthority: String) -> (authority: HostAuthority, defaultPort: Int)? {
        guard let separator = schemeAndAuthority.range(of: "://") else { return nil }
        let defaultPort: Int
        switch schemeAndAuthority[..<separator.lowerBound].lowercased() {
        case "http": defaultPort = 80
        case "https": defaultPort = 443
        default: return nil
        }
        guard let authority = HostAuthority(schemeAndAuthority[separator.upperBound...]) else { return nil }
        return (authority, defaultPort)
    }

    /// Whether this names the same host and port as `other`, a missing port being the scheme's default.
    ///
    /// - Parameters:
    ///   - other: the authority to compare with.
    ///   - defaultPort: the port an authority without one means (80 for `http`, 443 for `https`).
    /// - Returns: true when both name one host and one port.
    func isSame(as other: HostAuthority, defaultPort: Int) -> Bool {
        self.host == other.host && (self.port ?? defaultPort) == (other.port ?? defaultPort)
    }

    /// Whether the host is a DNS name: dot-separated labels of letters, digits, `-` and `_` (which container
    /// and compose service names use), rather than a reg-name that only the URI grammar allows (`%41`, `a,b`).
    var isDNSName: Bool {
        guard case .name(let name) = self.host else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty
                && label.utf8.allSatisfy { byte in
                    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                        || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                }
        }
    }

    /// RFC 3986's `reg-name`: unreserved characters, sub-delimiters and `%XX` escapes (possibly none).
    private static func isRegName(_ text: Substring) -> Bool {
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                continue
            case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                continue
            case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
                UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
                UInt8(ascii: "="):
                continue
            case UInt8(ascii: "%"):
                guard let high = bytes.next(), let low = bytes.next(), high.isHexDigit, low.isHexDigit else {
                    return false
                }
            default:
                return false
            }
        }
        return true
    }

    /// Whether `text` is a dotted-quad IPv4 address, by the C library's parser (`inet_pton`, which takes
    /// exactly four decimal parts without leading zeros, as RFC 3986's `IPv4address` does).
    private static func isIPv4(_ text: Substring) -> Bool {
        var address = in_addr()
        return String(text).withCString { inet_pton(AF_INET, $0, &address) } == 1
    }

    /// The IPv6 address inside brackets in its canonical text (`0:0::1` is `::1`), by the C library's
    /// parser; nil for anything else (a zone id, or RFC 3986's `IPvFuture`, which no client sends to a test
    /// server).
    private static func ipv6(_ text: Substring) -> String? {
        var address = in6_addr()
        guard String(text).withCString({ inet_pton(AF_INET6, $0, &address) }) == 1 else { return nil }
        var canonical = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &canonical, socklen_t(canonical.count)) != nil else { return nil }
        return String(decoding: canonical.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension UInt8 {
    /// An ASCII hexadecimal digit.
    fileprivate var isHexDigit: Bool {
        (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9"))
            || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}
