import Foundation
import MockCDNCore
import Testing

@Suite("File Access Tokens")
struct FileAccessTokenTests {
    static let key = HMACKey("demo-secret-for-local-testing-only")
    static let claims = FileAccessClaims(appID: "demo", userID: "alice", issuedAt: 1000, expiresAt: 4600)

    @Test("a token is standard base64 payload and MAC, and verifies until it expires")
    func roundTrip() throws {
        let token = FileAccessToken.issue(Self.claims, key: Self.key)
        let parts = token.split(separator: ".")
        #expect(parts.count == 2)
        // 32 MAC bytes always end in one `=` of padding: percent-encoding is never optional.
        #expect(parts[1].hasSuffix("="))
        let payload = try #require(Data(base64Encoded: String(parts[0])))
        let json = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        #expect(json["app"] as? String == "demo")
        #expect(json["uid"] as? String == "alice")
        #expect(try FileAccessToken.verify(token, appID: "demo", key: Self.key, now: 4599) == Self.claims)
        let expired = #expect(throws: AccessDenied.self) {
            try FileAccessToken.verify(token, appID: "demo", key: Self.key, now: 4600)
        }
        #expect(expired?.message == "File Access Token has expired")
        // The journal's `expired_at`: the token's `exp`.
        #expect(expired?.expiredAt == 4600)
    }

    @Test("two tokens for the same user in the same second differ")
    func unique() {
        #expect(FileAccessToken.issue(Self.claims, key: Self.key) != FileAccessToken.issue(Self.claims, key: Self.key))
    }

    @Test(
        "tampered, foreign and malformed tokens are refused with their reason",
        arguments: [
            ("flipped MAC character", "mac", "File Access Token signature does not match"),
            ("payload for another user", "payload", "File Access Token signature does not match"),
            ("another app's token", "app", "File Access Token belongs to another app"),
            ("another app's secret", "secret", "File Access Token signature does not match"),
            ("no dot", "nodot", "Malformed File Access Token"),
            ("not base64", "garbage", "Malformed File Access Token"),
            ("too long", "long", "Malformed File Access Token"),
        ]
    )
    func refused(_ name: String, _ variant: String, _ message: String) {
        let token = FileAccessToken.issue(Self.claims, key: Self.key)
        let parts = token.split(separator: ".").map(String.init)
        let bad: String
        switch variant {
        case "mac":
            var mac = Array(parts[1])
            mac[0] = mac[0] == "A" ? "B" : "A"
            bad = parts[0] + "." + String(mac)
        case "payload":
            var other = Self.claims
            other.userID = "mallory"
            bad = FileAccessToken.issue(other, key: Self.key).split(separator: ".")[0] + "." + parts[1]
        case "app":
            var other = Self.claims
            other.appID = "acme"
            bad = FileAccessToken.issue(other, key: HMACKey("acme-secret-at-least-32-bytes-long!!"))
        case "secret": bad = FileAccessToken.issue(Self.claims, key: HMACKey("another-secret-of-32-bytes-or-more!"))
        case "nodot": bad = parts[0] + parts[1]
        case "garbage": bad = "%%%." + parts[1]
        default: bad = String(repeating: "A", count: FileAccessToken.maximumLength) + "." + parts[1]
        }
        let denial = #expect(throws: AccessDenied.self, "\(name)") {
            try FileAccessToken.verify(bad, appID: "demo", key: Self.key, now: 2000)
        }
        #expect(denial?.message == message, "\(name)")
    }

    @Test("a files-host token says it leads to a presigned link; an ordinary one does not, nor does garbage")
    func presignClaim() throws {
        var claims = Self.claims
        claims.presign = true
        let token = FileAccessToken.issue(claims, key: Self.key)
        #expect(FileAccessToken.claimsPresign(token))
        #expect(try FileAccessToken.verify(token, appID: "demo", key: Self.key, now: 2000).presign)
        let plain = FileAccessToken.issue(Self.claims, key: Self.key)
        #expect(!FileAccessToken.claimsPresign(plain))
        #expect(try !FileAccessToken.verify(plain, appID: "demo", key: Self.key, now: 2000).presign)
        #expect(!FileAccessToken.claimsPresign("not a token"))
        #expect(!FileAccessToken.claimsPresign("e30=.AAAA"))
        // Read as JSON, not as text: a claim spelled with an escape counts, a false one or one in a value does not.
        func unsigned(_ json: String) -> String { Base64.encode(Array(json.utf8), .standard) + ".AAAA" }
        #expect(FileAccessToken.claimsPresign(unsigned(#"{"\u0070sn":true}"#)))
        #expect(FileAccessToken.claimsPresign(unsigned(#"{"app":"demo", "psn" : true}"#)))
        #expect(!FileAccessToken.claimsPresign(unsigned(#"{"psn":false}"#)))
        #expect(!FileAccessToken.claimsPresign(unsigned(#"{"uid":"psn","x":"\/"}"#)))
        #expect(!FileAccessToken.claimsPresign(unsigned(#"{"uid":"psn":true"#)))
    }
}
