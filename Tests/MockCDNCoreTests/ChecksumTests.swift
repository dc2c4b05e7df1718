import MockCDNCore
import NIOCore
import Testing

@Suite("S3 checksums: CRC32, CRC32C, CRC64NVME, SHA-1, SHA-256, MD5 (2026's: Checksum2026Tests)")
struct ChecksumTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let algorithm: ChecksumAlgorithm
        let input: String
        let base64: String
        var testDescription: String { "\(self.algorithm) of \"\(self.input)\"" }
    }

    /// The values the AWS SDK sends S3 in `x-amz-checksum-*`: aws/aws-sdk-js-v3,
    /// packages/middleware-flexible-checksums/src/middleware-flexible-checksums.integ.spec.ts. Each one checked
    /// against Python's zlib.crc32, hashlib and awscrt.checksums (crc32c, crc64nvme).
    static let awsVectors: [Vector] = [
        .init(algorithm: .crc32, input: "", base64: "AAAAAA=="),
        .init(algorithm: .crc32, input: "abc", base64: "NSRBwg=="),
        .init(algorithm: .crc32, input: "Hello world", base64: "i9aeUg=="),
        .init(algorithm: .crc32c, input: "", base64: "AAAAAA=="),
        .init(algorithm: .crc32c, input: "abc", base64: "Nks/tw=="),
        .init(algorithm: .crc32c, input: "Hello world", base64: "crUfeA=="),
        .init(algorithm: .crc64nvme, input: "", base64: "AAAAAAAAAAA="),
        .init(algorithm: .crc64nvme, input: "abc", base64: "BeXKuz/B+us="),
        .init(algorithm: .crc64nvme, input: "Hello world", base64: "OOJZ0D8xKts="),
        .init(algorithm: .sha1, input: "", base64: "2jmj7l5rSw0yVb/vlWAYkK/YBwk="),
        .init(algorithm: .sha1, input: "abc", base64: "qZk+NkcGgWq6PiVxeFDCbJzQ2J0="),
        .init(algorithm: .sha1, input: "Hello world", base64: "e1AsOh9IyGCa4hLN+2Od7jlnP14="),
        .init(algorithm: .sha256, input: "", base64: "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="),
        .init(algorithm: .sha256, input: "abc", base64: "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="),
        .init(algorithm: .sha256, input: "Hello world", base64: "ZOyIygCyaOW6GjVnihtTFtIS9PNmskdyMlNKiuyjfzw="),
    ]

    @Test("AWS SDK vectors, whole and a byte at a time", arguments: awsVectors)
    func awsSDK(vector: Vector) {
        #expect(Base64.encode(vector.algorithm.checksum(of: vector.input), .standard) == vector.base64)
        let checksummer = Checksummer(vector.algorithm)
        for byte in vector.input.utf8 { checksummer.update([byte]) }
        #expect(checksummer.base64() == vector.base64)
        #expect(checksummer.finalize().count == vector.algorithm.digestLength)
    }

    /// The check values of Greg Cook's "Catalogue of parametrised CRC algorithms"
    /// (https://reveng.sourceforge.io/crc-catalogue/): the CRC of the ASCII "123456789", for CRC-32/ISO-HDLC,
    /// CRC-32/ISCSI and CRC-64/NVME.
    @Test(
        "CRC catalogue check values",
        arguments: [
            (ChecksumAlgorithm.crc32, "cbf43926"), (.crc32c, "e3069283"), (.crc64nvme, "ae8b14860a799888"),
        ]
    )
    func catalogue(algorithm: ChecksumAlgorithm, check: String) {
        #expect(algorithm.checksum(of: "123456789").hexString == check)
    }

    /// RFC 3720 (iSCSI) appendix B.4, the CRC32C examples. The RFC prints each CRC's bytes as they go on its
    /// wire, least significant first ("aa 36 91 8a"); S3 sends the most significant first.
    @Test(
        "RFC 3720 CRC32C examples",
        arguments: [
            ("32 bytes of zeros", [UInt8](repeating: 0, count: 32), "8a9136aa"),
            ("32 bytes of ones", [UInt8](repeating: 0xff, count: 32), "62a8ab43"),
            ("32 incrementing bytes", [UInt8](0...31), "46dd794e"),
            ("32 decrementing bytes", [UInt8]((0...31).reversed()), "113fdb5c"),
        ]
    )
    func rfc3720(name: String, data: [UInt8], crc: String) {
        #expect(ChecksumAlgorithm.crc32c.checksum(of: data).hexString == crc, "\(name)")
    }

    /// NVM Express NVM Command Set Specification 1.0a, 5.2.1.3.5 "64b CRC Test Cases": 4 KiB buffers (the
    /// cases the Linux kernel's crc64 test takes from it).
    @Test(
        "NVMe CRC-64 test cases",
        arguments: [
            ("4 KiB of zeros", [UInt8](repeating: 0, count: 4096), "6482d367eb22b64e"),
            ("4 KiB of 0xFF", [UInt8](repeating: 0xff, count: 4096), "c0ddba7302eca3ac"),
            ("4 KiB incrementing", (0..<4096).map { UInt8(truncatingIfNeeded: $0) }, "3e729f5f6750449c"),
            ("4 KiB decrementing", (0..<4096).map { 0xff - UInt8(truncatingIfNeeded: $0) }, "9a2df64b8e9e517e"),
        ]
    )
    func nvme(name: String, data: [UInt8], crc: String) {
        #expect(ChecksumAlgorithm.crc64nvme.checksum(of: data).hexString == crc, "\(name)")
    }

    /// 1 MiB and 13 bytes, so that every slice of the tables and the byte-at-a-time tail are used. The expected
    /// values were computed once in Python: `b = bytes(((i*i + 7*i) >> 3) & 0xff for i in range((1 << 20) + 13))`,
    /// then `zlib.crc32(b)`, awscrt 0.38.1's `checksums.crc32c(b)` and `checksums.crc64nvme(b)`, and hashlib.
    static let large: [UInt8] = (0..<((1 << 20) + 13)).map { UInt8(truncatingIfNeeded: ($0 &* $0 &+ 7 &* $0) >> 3) }
    static let largeExpected: [(ChecksumAlgorithm, String)] = [
        (.crc32, "75bb2051"),
        (.crc32c, "7747846b"),
        (.crc64nvme, "19f4b3365d9eb318"),
        (.sha1, "5c69cecce90c59ffb89478669a79f1a42922088b"),
        (.sha256, "509c9ce84538f04eeebb7c8ee784121f7a153acb3d59fd5bb93bdf14cb8988f4"),
    ]

    @Test("1 MiB + 13 bytes: whole, and in odd-sized pieces", arguments: largeExpected)
    func large(algorithm: ChecksumAlgorithm, expected: String) {
        #expect(algorithm.checksum(of: Self.large).hexString == expected)
        // Pieces of sizes that start every slice-by-8 block at another offset, and cross 4 KiB pages.
        let sizes = [1, 3, 7, 13, 64, 4095, 8193, 2, 65_537]
        let checksummer = Checksummer(algorithm)
        var offset = 0
        var index = 0
        while offset < Self.large.count {
            let end = min(offset + sizes[index % sizes.count], Self.large.count)
            checksummer.update(Self.large[offset..<end])
            offset = end
            index += 1
        }
        #expect(checksummer.finalize().hexString == expected)
    }

    @Test("empty input: nothing fed, or empty pieces", arguments: ChecksumAlgorithm.all)
    func empty(algorithm: ChecksumAlgorithm) {
        let untouched = Checksummer(algorithm)
        let fedEmpty = Checksummer(algorithm)
        fedEmpty.update([UInt8]())
        fedEmpty.update(ByteBuffer())
        fedEmpty.update("")
        // The 2026 algorithms' empty-input values are among Checksum2026Tests' published vectors.
        let expected =
            Self.awsVectors.first { $0.algorithm == algorithm && $0.input.isEmpty }?.base64
            ?? (Checksum2026Tests.digestVectors + Checksum2026Tests.xxHashVectors)
            .first { $0.algorithm == algorithm && $0.input.isEmpty }
            .flatMap { [UInt8](hexString: $0.hex) }
            .map { Base64.encode($0, .standard) }
        #expect(expected != nil, "a published empty-input value for \(algorithm)")
        #expect(untouched.base64() == expected)
        #expect(fedEmpty.base64() == expected)
    }

    @Test("finalize() returns the same bytes when called again")
    func finalizeTwice() {
        for algorithm in ChecksumAlgorithm.all {
            let checksummer = Checksummer(algorithm)
            checksummer.update("Hello world")
            let first = checksummer.finalize()
            #expect(checksummer.finalize() == first)
            #expect(checksummer.base64() == Base64.encode(first, .standard))
        }
    }

    @Test("a ByteBuffer is read from its reader index to its writer index")
    func byteBufferWindow() {
        var buffer = ByteBuffer(string: "xxHello worldyy")
        buffer.moveReaderIndex(forwardBy: 2)
        buffer.moveWriterIndex(to: buffer.writerIndex - 2)
        #expect(Base64.encode(ChecksumAlgorithm.crc32c.checksum(of: buffer), .standard) == "crUfeA==")
    }

    @Test("fed from an async body of ByteBuffers, as an upload arrives")
    func asyncBody() async {
        let body = AsyncStream<ByteBuffer> { continuation in
            for piece in ["Hel", "lo", " ", "wor", "ld"] { continuation.yield(ByteBuffer(string: piece)) }
            continuation.finish()
        }
        let checksummer = Checksummer(.crc64nvme)
        let md5 = MD5Hasher()
        for await chunk in body {
            checksummer.update(chunk)
            md5.update(chunk)
        }
        #expect(checksummer.base64() == "OOJZ0D8xKts=")
        #expect(md5.finalize().hexString == "3e25960a79dbc69b674cd4ec67a72c62")
    }
}

@Suite("S3 checksum algorithm names")
struct ChecksumAlgorithmTests {
    @Test(
        "names, headers and lengths",
        arguments: [
            (ChecksumAlgorithm.crc32, "CRC32", "x-amz-checksum-crc32", 4),
            (.crc32c, "CRC32C", "x-amz-checksum-crc32c", 4),
            (.crc64nvme, "CRC64NVME", "x-amz-checksum-crc64nvme", 8),
            (.sha1, "SHA1", "x-amz-checksum-sha1", 20),
            (.sha256, "SHA256", "x-amz-checksum-sha256", 32),
            (.sha512, "SHA512", "x-amz-checksum-sha512", 64), (.md5, "MD5", "x-amz-checksum-md5", 16),
            (.xxhash64, "XXHASH64", "x-amz-checksum-xxhash64", 8), (.xxhash3, "XXHASH3", "x-amz-checksum-xxhash3", 8),
            (.xxhash128, "XXHASH128", "x-amz-checksum-xxhash128", 16),
        ]
    )
    func names(algorithm: ChecksumAlgorithm, name: String, header: String, length: Int) {
        #expect(algorithm.name == name)
        #expect(algorithm.description == name)
        #expect(algorithm.headerName == header)
        #expect(algorithm.digestLength == length)
        #expect(algorithm.checksum(of: "x").count == length)
        #expect(ChecksumAlgorithm(name: name) == algorithm)
        #expect(ChecksumAlgorithm(name: name.lowercased()) == algorithm)
        #expect(ChecksumAlgorithm(headerName: header) == algorithm)
        #expect(ChecksumAlgorithm(headerName: header.uppercased()) == algorithm)
        #expect(ChecksumAlgorithm(headerName: "X-Amz-Checksum-" + name) == algorithm)
    }

    @Test(
        "names S3 does not know",
        arguments: [
            "", "MD4", "CRC", "crc32 ", "SHA-256", "x-amz-checksum-crc32", "CRC64", "XXHASH", "XXH3", "SHA-512",
        ]
    )
    func unknownNames(name: String) {
        #expect(ChecksumAlgorithm(name: name) == nil)
    }

    @Test(
        "headers that carry no flexible checksum",
        arguments: [
            "", "x-amz-checksum-md4", "x-amz-checksum-", "content-md5", "crc32", "x-amz-checksum-crc32c-x",
            "x-amz-checksum-xxh3", "x-amz-checksum-type", "x-amz-checksum-algorithm",
        ]
    )
    func unknownHeaders(header: String) {
        #expect(ChecksumAlgorithm(headerName: header) == nil)
    }

    @Test("all: each algorithm once, the CRCs first, then the SHAs, then the five of 2026")
    func all() {
        #expect(
            ChecksumAlgorithm.all == [
                .crc64nvme, .crc32c, .crc32, .sha1, .sha256, .sha512, .md5, .xxhash64, .xxhash3, .xxhash128,
            ]
        )
        #expect(Set(ChecksumAlgorithm.all).count == 10)
        #expect(Set(ChecksumAlgorithm.all.suffix(5)) == ChecksumAlgorithm.added2026)
    }
}

@Suite("MD5 and SHA-1")
struct LegacyDigestTests {
    /// RFC 1321 appendix A.5, the MD5 test suite.
    @Test(
        "RFC 1321 MD5 test suite, whole and in pieces",
        arguments: [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
            (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
        ]
    )
    func md5(message: String, expected: String) {
        #expect(Digest.md5(message).hexString == expected)
        let hasher = MD5Hasher()
        for piece in Self.pieces(of: message) { hasher.update(piece) }
        #expect(hasher.finalize().hexString == expected)
    }

    /// FIPS 180-2 appendix A, the SHA-1 examples: one block, two blocks, and a million "a".
    @Test(
        "FIPS 180-2 SHA-1 examples, whole and in pieces",
        arguments: [
            ("abc", 1, "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
                "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
            ),
            ("a", 1_000_000, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        ]
    )
    func sha1(unit: String, repeats: Int, expected: String) {
        let message = String(repeating: unit, count: repeats)
        #expect(Digest.sha1(message).hexString == expected)
        let hasher = SHA1Hasher()
        for piece in Self.pieces(of: message) { hasher.update(piece) }
        #expect(hasher.finalize().hexString == expected)
        #expect(ChecksumAlgorithm.sha1.checksum(of: message).hexString == expected)
    }

    /// `message` in pieces of 1, 4, 13, 40, ... bytes.
    static func pieces(of message: String) -> [Substring] {
        var pieces: [Substring] = []
        var rest = Substring(message)
        var size = 1
        while !rest.isEmpty {
            pieces.append(rest.prefix(size))
            rest = rest.dropFirst(size)
            size = size * 3 + 1
        }
        return pieces
    }
}

@Suite("A client's checksum, read and checked")
struct ClaimedChecksumTests {
    @Test("a matching x-amz-checksum-* value passes", arguments: ChecksumTests.awsVectors)
    func matches(vector: ChecksumTests.Vector) throws {
        let claim = try ClaimedChecksum(vector.base64, algorithm: vector.algorithm)
        #expect(claim.algorithm == vector.algorithm)
        try claim.check(vector.algorithm.checksum(of: vector.input))
        let checksummer = Checksummer(vector.algorithm)
        checksummer.update(vector.input)
        try claim.check(checksummer)
    }

    @Test("a well-formed value the body does not match: 400 BadDigest", arguments: ChecksumAlgorithm.all)
    func mismatch(algorithm: ChecksumAlgorithm) throws {
        let claim = try ClaimedChecksum(
            Base64.encode([UInt8](repeating: 0, count: algorithm.digestLength), .standard),
            algorithm: algorithm
        )
        let error = #expect(throws: ChecksumError.mismatch(algorithm)) {
            try claim.check(algorithm.checksum(of: "Hello world"))
        }
        #expect(error?.code == "BadDigest")
        #expect(error?.message == "The \(algorithm.name) you specified did not match the calculated checksum.")
        #expect(error?.isMismatch == true)
        #expect(error?.algorithm == algorithm)
        #expect(error?.category == .invalidInput)
    }

    @Test("S3's words for a CRC32 mismatch and an invalid CRC32 value")
    func s3Text() {
        #expect(
            ChecksumError.mismatch(.crc32).description
                == "BadDigest: The CRC32 you specified did not match the calculated checksum."
        )
        #expect(
            ChecksumError.invalid(.crc32).description
                == "InvalidRequest: Value for x-amz-checksum-crc32 header is invalid."
        )
        #expect(
            ChecksumError.invalid(.crc64nvme).publicMessage == "Value for x-amz-checksum-crc64nvme header is invalid."
        )
    }

    @Test(
        "not base64, base64 of the wrong length, or not as an SDK spells it: 400 InvalidRequest",
        arguments: [
            (ChecksumAlgorithm.crc32, ""), (.crc32, "not base64!"), (.crc32, "AAAA"), (.crc32, "OOJZ0D8xKts="),
            (.crc32, "i9ae Ug=="), (.crc32, "i9aeUg"), (.crc32, "i9aeUh=="), (.crc32c, "crUfeA==="),
            (.crc64nvme, "i9aeUg=="), (.sha1, "i9aeUg=="),
            (.sha256, "e1AsOh9IyGCa4hLN+2Od7jlnP14="), (.sha256, "ZOyIygCyaOW6GjVnihtTFtIS9PNmskdyMlNKiuyjfzw=="),
        ]
    )
    func invalid(algorithm: ChecksumAlgorithm, value: String) {
        let error = #expect(throws: ChecksumError.invalid(algorithm)) {
            try ClaimedChecksum(value, algorithm: algorithm)
        }
        #expect(error?.code == "InvalidRequest")
        #expect(error?.message == "Value for \(algorithm.headerName) header is invalid.")
        #expect(error?.isMismatch == false)
        #expect(error?.category == .invalidInput)
    }

    @Test("Content-MD5: a match passes, a mismatch is 400 BadDigest")
    func contentMD5() throws {
        // base64 of MD5("Hello world"), as `openssl md5 -binary | base64` prints it.
        let claim = try ClaimedChecksum(contentMD5: "PiWWCnnbxptnTNTsZ6csYg==")
        #expect(claim.algorithm == nil)
        try claim.check(Digest.md5("Hello world"))
        let error = #expect(throws: ChecksumError.contentMD5Mismatch) { try claim.check(Digest.md5("Hello world!")) }
        #expect(error?.code == "BadDigest")
        #expect(error?.message == "The Content-MD5 you specified did not match what we received.")
        #expect(error?.algorithm == nil)
        #expect(error?.isMismatch == true)
    }

    @Test(
        "Content-MD5 that is not base64 of 16 bytes: 400 InvalidDigest",
        arguments: [
            "", "PiWWCnnbxptnTNTsZ6csYg", "PiWWCnnbxptnTNTsZ6csYg=", "PiWWCnnbxptnTNTsZ6csYg===",
            "PiWWCnnbxptnTNTsZ6csYg==PiWW", "e1AsOh9IyGCa4hLN+2Od7jlnP14=",
            // The hex digest, which some clients send by mistake: valid base64, but of 24 bytes.
            "3e25960a79dbc69b674cd4ec67a72c62",
        ]
    )
    func invalidContentMD5(value: String) {
        let error = #expect(throws: ChecksumError.invalidContentMD5) { try ClaimedChecksum(contentMD5: value) }
        #expect(error?.code == "InvalidDigest")
        #expect(error?.message == "The Content-MD5 you specified was invalid.")
        #expect(error?.isMismatch == false)
    }
}
