import Foundation
import MockCDNCore
import Testing

@Suite("Crypto")
struct CryptoTests {
    struct HMACVector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: [UInt8]
        let data: [UInt8]
        let expected: String
        var testDescription: String { self.name }
    }

    /// RFC 4231 section 4, HMAC-SHA-256. Case 5's output is truncated to 128 bits by the RFC.
    static let rfc4231: [HMACVector] = [
        .init(
            name: "case 1",
            key: .init(repeating: 0x0b, count: 20),
            data: Array("Hi There".utf8),
            expected: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        .init(
            name: "case 2",
            key: Array("Jefe".utf8),
            data: Array("what do ya want for nothing?".utf8),
            expected: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        .init(
            name: "case 3",
            key: .init(repeating: 0xaa, count: 20),
            data: .init(repeating: 0xdd, count: 50),
            expected: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        .init(
            name: "case 4",
            key: Array(1...25),
            data: .init(repeating: 0xcd, count: 50),
            expected: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        .init(
            name: "case 5 (truncated)",
            key: .init(repeating: 0x0c, count: 20),
            data: Array("Test With Truncation".utf8),
            expected: "a3b6167473100ee06e0c796c2955552b"
        ),
        .init(
            name: "case 6",
            key: .init(repeating: 0xaa, count: 131),
            data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            expected: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        .init(
            name: "case 7",
            key: .init(repeating: 0xaa, count: 131),
            data: Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm.").utf8
            ),
            expected: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ]

    @Test("RFC 4231 HMAC-SHA256, one-shot", arguments: rfc4231)
    func hmacOneShot(vector: HMACVector) {
        let mac = HMAC.sha256(vector.data, key: vector.key)
        #expect(mac.hexString.hasPrefix(vector.expected))
        #expect(mac.count == 32)
    }

    @Test("RFC 4231 HMAC-SHA256, reused keyed context", arguments: rfc4231)
    func hmacReusedKey(vector: HMACVector) {
        let key = HMACKey(vector.key)
        // The same prepared key must give the same answer every time: nothing of one MAC leaks into the next.
        for _ in 0..<3 {
            #expect(key.authenticationCode(for: vector.data).hexString.hasPrefix(vector.expected))
        }
        #expect(key.authenticationCode(for: [UInt8]()) == HMAC.sha256([UInt8](), key: vector.key))
    }

    @Test("keyed context is safe to share between tasks")
    func hmacConcurrent() async {
        let key = HMACKey(Array("Jefe".utf8))
        let expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        let results = await withTaskGroup(of: String.self) { group in
            for _ in 0..<64 {
                group.addTask { key.authenticationCode(for: "what do ya want for nothing?").hexString }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: expected, count: 64))
    }

    /// FIPS 180-2 / NIST CSRC example values.
    @Test(
        "NIST SHA-256 vectors",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (
                String(repeating: "a", count: 1_000_000),
                "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
            ),
        ]
    )
    func sha256(message: String, expected: String) {
        #expect(Digest.sha256(message).hexString == expected)
        // The same digest when the bytes arrive in uneven pieces.
        let hasher = SHA256Hasher()
        var rest = Substring(message)
        var piece = 1
        while !rest.isEmpty {
            hasher.update(rest.prefix(piece))
            rest = rest.dropFirst(piece)
            piece = piece * 3 + 1
        }
        #expect(hasher.finalize().hexString == expected)
    }

    @Test("constant-time compare")
    func constantTimeEqual() {
        let mac = HMAC.sha256("message", key: "key")
        var tampered = mac
        tampered[31] ^= 1
        #expect(SecureBytes.constantTimeEqual(mac, mac))
        #expect(!SecureBytes.constantTimeEqual(mac, tampered))
        #expect(!SecureBytes.constantTimeEqual(mac, Array(mac.prefix(31))))
        #expect(SecureBytes.constantTimeEqual([UInt8](), [UInt8]()))
    }

    @Test("random bytes differ and have the asked length")
    func randomBytes() {
        let first = SecureBytes.random(count: 32)
        let second = SecureBytes.random(count: 32)
        #expect(first.count == 32)
        #expect(first != second)
        #expect(SecureBytes.random(count: 0).isEmpty)
    }

    @Test("hex round trip")
    func hex() {
        #expect([UInt8](hexString: "00ff10Ab") == [0x00, 0xff, 0x10, 0xab])
        #expect([UInt8](hexString: "abc") == nil)
        #expect([UInt8](hexString: "zz") == nil)
        #expect([0x00, 0xff, 0x10, 0xab].hexString == "00ff10ab")
    }
}

@Suite("Base64 in the credentials' three alphabets")
struct Base64Tests {
    @Test(
        "RFC 4648's vectors in each alphabet, and back",
        arguments: [
            ("", "", "", ""), ("f", "Zg==", "Zg", "Zg__"), ("fo", "Zm8=", "Zm8", "Zm8_"),
            ("foo", "Zm9v", "Zm9v", "Zm9v"),
            ("foob", "Zm9vYg==", "Zm9vYg", "Zm9vYg__"), ("fooba", "Zm9vYmE=", "Zm9vYmE", "Zm9vYmE_"),
            ("foobar", "Zm9vYmFy", "Zm9vYmFy", "Zm9vYmFy"),
        ]
    )
    func vectors(text: String, standard: String, url: String, cloudFront: String) {
        for (alphabet, encoded) in [(Base64.Alphabet.standard, standard), (.url, url), (.cloudFront, cloudFront)] {
            #expect(Base64.encode(text, alphabet) == encoded)
            #expect(Base64.decode(encoded, alphabet) == Array(text.utf8))
        }
    }

    @Test("+ and / have their own characters in each alphabet")
    func specialCharacters() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF]  // "+/+/" in the standard alphabet
        #expect(Base64.encode(bytes, .standard) == "+/+/")
        #expect(Base64.encode(bytes, .url) == "-_-_")
        #expect(Base64.encode(bytes, .cloudFront) == "-~-~")
        for (alphabet, encoded) in [(Base64.Alphabet.standard, "+/+/"), (.url, "-_-_"), (.cloudFront, "-~-~")] {
            #expect(Base64.decode(encoded, alphabet) == bytes)
        }
        #expect(Base64.decode("+/+/", .cloudFront) == bytes, "CloudFront reads the standard alphabet too")
    }

    @Test(
        "characters outside an alphabet are refused",
        arguments: [
            ("+/+/", Base64.Alphabet.url), ("Zg==", .url), ("-_-_", .standard), ("Zm 9v", .standard),
            ("Zm9v\u{0}", .cloudFront),
            ("Zm9vé", .url),
        ]
    )
    func refused(text: String, alphabet: Base64.Alphabet) {
        #expect(Base64.decode(text, alphabet) == nil)
    }
}
