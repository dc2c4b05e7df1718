import CMockCDNCrypto
import MockCDNCore
import Testing

/// CRC64NVME takes the carry-less multiply path on a CPU with PCLMULQDQ, and slice-by-8 elsewhere; the published
/// vectors (`ChecksumTests`) are few, so the two paths are also held to each other over many lengths, alignments,
/// running values and piece boundaries.
@Suite("CRC64NVME: the PCLMULQDQ path against slice-by-8")
struct CRC64NVMEFoldingTests {
    /// A fixed xorshift generator, so a failure names a case that can be run again.
    struct Xorshift: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            self.state ^= self.state << 13
            self.state ^= self.state >> 7
            self.state ^= self.state << 17
            return self.state
        }
    }

    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = Xorshift(state: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }

    static func fast(_ crc: UInt64, _ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.withUnsafeBytes { CMockCDNCrypto_crc64nvme_update(crc, $0.baseAddress, $0.count) }
    }

    static func portable(_ crc: UInt64, _ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.withUnsafeBytes { CMockCDNCrypto_crc64nvme_update_portable(crc, $0.baseAddress, $0.count) }
    }

    @Test("the check value of \"123456789\" on both paths, and 4 KiB of zeros (NVMe's first case)")
    func checkValues() {
        let digits = Array("123456789".utf8)[...]
        #expect(Self.fast(0, digits) == 0xAE8B_1486_0A79_9888)
        #expect(Self.portable(0, digits) == 0xAE8B_1486_0A79_9888)
        let zeros = [UInt8](repeating: 0, count: 4096)[...]
        #expect(Self.fast(0, zeros) == 0x6482_D367_EB22_B64E)
        #expect(Self.portable(0, zeros) == 0x6482_D367_EB22_B64E)
    }

    /// Every length from 0 to 4096 bytes, at eight start offsets (the loads are unaligned), from a running
    /// value that is not 0, so the first block's mixing in of the register is checked too.
    @Test("lengths 0 to 4096 at offsets 0 to 7", arguments: 0..<8)
    func lengthsAndOffsets(offset: Int) {
        let bytes = Self.randomBytes(4096 + 8, seed: 0x9E37_79B9_7F4A_7C15 &+ UInt64(offset))
        var running = Xorshift(state: 0xDEAD_BEEF &+ UInt64(offset))
        var mismatches: [Int] = []
        for length in 0...4096 {
            let crc = length % 3 == 0 ? 0 : running.next()
            let piece = bytes[offset..<(offset + length)]
            if Self.fast(crc, piece) != Self.portable(crc, piece) { mismatches.append(length) }
        }
        #expect(mismatches.isEmpty, "lengths that differ at offset \(offset): \(mismatches.prefix(10))")
    }

    /// An upload's digest is fed in pieces of whatever the socket gave, gathered into 1 MiB batches: the same
    /// CRC whatever the cuts, on either path.
    @Test("3 MiB + 77 bytes fed whole, in 1 MiB batches, and in pieces that cut every boundary")
    func pieces() {
        let bytes = Self.randomBytes(3 << 20 + 77, seed: 42)
        let whole = Self.portable(0, bytes[...])
        #expect(Self.fast(0, bytes[...]) == whole)
        var generator = Xorshift(state: 7)
        for maxPiece in [129, 4097, 65_537, 1 << 20] {
            var crc: UInt64 = 0
            var start = 0
            while start < bytes.count {
                let length =
                    maxPiece == 1 << 20 ? maxPiece : Int(generator.next() % UInt64(maxPiece)) + 1
                let end = min(start + length, bytes.count)
                crc = Self.fast(crc, bytes[start..<end])
                start = end
            }
            #expect(crc == whole, "pieces of up to \(maxPiece) bytes")
        }
        let checksummer = Checksummer(.crc64nvme)
        checksummer.update(bytes[..<(1 << 20 - 3)])
        checksummer.update(bytes[(1 << 20 - 3)...])
        #expect(checksummer.finalize() == withUnsafeBytes(of: whole.bigEndian) { Array($0) })
    }
}
