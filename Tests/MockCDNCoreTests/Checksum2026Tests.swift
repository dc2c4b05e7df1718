import MockCDNCore
import Testing

@Suite("S3's 2026 checksums: SHA-512, MD5, XXHASH64, XXHASH3, XXHASH128")
struct Checksum2026Tests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let algorithm: ChecksumAlgorithm
        let input: [UInt8]
        let hex: String
        var testDescription: String { "\(self.algorithm) of \(self.input.count) bytes" }

        init(_ algorithm: ChecksumAlgorithm, _ input: String, _ hex: String) {
            self.init(algorithm, Array(input.utf8), hex)
        }

        init(_ algorithm: ChecksumAlgorithm, _ input: [UInt8], _ hex: String) {
            (self.algorithm, self.input, self.hex) = (algorithm, input, hex)
        }
    }

    /// xxHash's sanity buffer (`tests/sanity_test_vectors.h`, xxhsum's self-test): byte i is the top byte of
    /// PRIME32_1 times PRIME64_1 to the power i, modulo 2^64.
    static let sanityBuffer: [UInt8] = {
        var generator: UInt64 = 2_654_435_761
        var buffer: [UInt8] = []
        for _ in 0..<2367 {
            buffer.append(UInt8(generator >> 56))
            generator = generator &* 11_400_714_785_074_694_797
        }
        return buffer
    }()

    /// FIPS 180-2's SHA-512 examples (appendix C) and the empty message; RFC 1321's MD5 test suite (A.5).
    static let digestVectors: [Vector] = [
        .init(
            .sha512,
            "",
            "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd"
                + "47417a81a538327af927da3e"
        ),
        .init(
            .sha512,
            "abc",
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d44"
                + "23643ce80e2a9ac94fa54ca49f"
        ),
        .init(
            .sha512,
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrst"
                + "nopqrstu",
            "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329"
                + "eeb6dd26545e96e55b874be909"
        ),
        .init(.md5, "", "d41d8cd98f00b204e9800998ecf8427e"),
        .init(.md5, "a", "0cc175b9c0f1b6a831c399e269772661"),
        .init(.md5, "abc", "900150983cd24fb0d6963f7d28e17f72"),
        .init(.md5, "message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        .init(.md5, "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
    ]

    /// xxHash's own self-test values for its sanity buffer (xxhsum's `BMK_sanityCheck`), seed 0, in the
    /// canonical (big-endian) form S3 encodes; XXH128's are its high half then its low half. The 128-bit
    /// values past the shortest were checked with awscrt's `XXHash.new_xxhash3_128`, which botocore uses.
    static let xxHashVectors: [Vector] = [
        .init(.xxhash64, [], "ef46db3751d8e999"),
        .init(.xxhash64, Array(sanityBuffer.prefix(1)), "e934a84adb052768"),
        .init(.xxhash64, Array(sanityBuffer.prefix(14)), "8282dcc4994e35c8"),
        .init(.xxhash64, Array(sanityBuffer.prefix(222)), "b641ae8cb691c174"),
        .init(.xxhash3, [], "2d06800538d394c2"),
        .init(.xxhash3, Array(sanityBuffer.prefix(1)), "c44bdff4074eecdb"),
        .init(.xxhash3, Array(sanityBuffer.prefix(6)), "27b56a84cd2d7325"),
        .init(.xxhash3, Array(sanityBuffer.prefix(12)), "a713daf0dfbb77e7"),
        .init(.xxhash3, Array(sanityBuffer.prefix(24)), "a3fe70bf9d3510eb"),
        .init(.xxhash3, Array(sanityBuffer.prefix(48)), "397da259ecba1f11"),
        .init(.xxhash3, Array(sanityBuffer.prefix(80)), "bcdefbbb2c47c90a"),
        .init(.xxhash3, Array(sanityBuffer.prefix(195)), "cd94217ee362ec3a"),
        .init(.xxhash3, Array(sanityBuffer.prefix(2367)), "cb37aeb9e5d361ed"),
        .init(.xxhash128, [], "99aa06d3014798d86001c324468d497f"),
        .init(.xxhash128, Array(sanityBuffer.prefix(1)), "a6cd5e9392000f6ac44bdff4074eecdb"),
        .init(.xxhash128, Array(sanityBuffer.prefix(80)), "fdf2cefde9eaac8a454ae6bf7a8a532d"),
        .init(.xxhash128, Array(sanityBuffer.prefix(403)), "1b6de21e332dd73dcdeb804d65c6dea4"),
        .init(.xxhash128, Array(sanityBuffer.prefix(2367)), "e89c0f6ff369b427cb37aeb9e5d361ed"),
    ]

    @Test("digests and xxHashes, whole", arguments: digestVectors + xxHashVectors)
    func whole(vector: Vector) {
        #expect(vector.algorithm.checksum(of: vector.input).hexString == vector.hex)
        #expect(vector.algorithm.digestLength * 2 == vector.hex.count)
    }

    /// Pieces that split XXH3's 64-byte stripes and 256-byte internal buffer at odd places: streaming must give
    /// what hashing it whole does.
    @Test("in uneven pieces, as an upload streams", arguments: digestVectors + xxHashVectors)
    func pieces(vector: Vector) {
        let checksummer = Checksummer(vector.algorithm)
        var rest = vector.input[...]
        var size = 1
        while !rest.isEmpty {
            checksummer.update(Array(rest.prefix(size)))
            rest = rest.dropFirst(size)
            size = size * 3 + 1
        }
        #expect(checksummer.finalize().hexString == vector.hex)
        #expect(checksummer.finalize().hexString == vector.hex, "finalize again gives the same bytes")
    }

    @Test("S3's names and headers", arguments: ChecksumAlgorithm.added2026)
    func names(algorithm: ChecksumAlgorithm) throws {
        #expect(ChecksumAlgorithm(name: algorithm.name.lowercased()) == algorithm)
        #expect(ChecksumAlgorithm(headerName: algorithm.headerName.uppercased()) == algorithm)
        #expect(algorithm.headerName == "x-amz-checksum-" + algorithm.name.lowercased())
        #expect(!algorithm.combinesFullObject && algorithm.makesComposite)
        let value = Base64.encode(algorithm.checksum(of: "Hello world"), .standard)
        try ClaimedChecksum(value, algorithm: algorithm).check(algorithm.checksum(of: "Hello world"))
        #expect(throws: ChecksumError.mismatch(algorithm)) {
            try ClaimedChecksum(value, algorithm: algorithm).check(algorithm.checksum(of: "Hello world!"))
        }
    }

    @Test("which algorithms make which multipart checksum type, as S3 documents them")
    func types() {
        #expect(ChecksumAlgorithm.all.filter(\.combinesFullObject) == [.crc64nvme, .crc32c, .crc32])
        #expect(ChecksumAlgorithm.all.filter { !$0.makesComposite } == [.crc64nvme])
        #expect(ChecksumAlgorithm.all.count == 10)
    }
}
