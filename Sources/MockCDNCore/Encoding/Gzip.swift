/// A gzip member (RFC 1952) around bytes: what a vendor's compressed webhook body is.
///
/// The deflate data is written as stored blocks (RFC 1951 §3.2.4, no compression): a valid gzip stream every
/// gunzip reads (Python's `gzip`, Node's `zlib`, `Content-Encoding: gzip` in any HTTP stack), with no zlib to
/// link. A mock's webhook bodies are small, and the tests look at the encoding, not at the ratio.
public enum Gzip {
    /// The most bytes one stored block holds.
    static let maximumStoredBlock = 65_535

    /// The gzip member holding `bytes`.
    ///
    /// - Parameter bytes: the uncompressed bytes.
    /// - Returns: the gzip stream; it starts with `1f 8b`, as the vendors' SDKs detect it.
    public static func wrap(_ bytes: [UInt8]) -> [UInt8] {
        // ID1 ID2, CM = deflate, no flags, no time, no extra flags, OS = unknown.
        var out: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]
        out.reserveCapacity(bytes.count + bytes.count / Self.maximumStoredBlock * 5 + 23)
        var start = 0
        repeat {
            let end = min(start + Self.maximumStoredBlock, bytes.count)
            let length = UInt16(end - start)
            out.append(end == bytes.count ? 1 : 0)  // BFINAL on the last block, BTYPE 00 (stored)
            out.append(contentsOf: [UInt8(length & 0xff), UInt8(length >> 8)])
            out.append(contentsOf: [UInt8(~length & 0xff), UInt8(~length >> 8)])
            out.append(contentsOf: bytes[start..<end])
            start = end
        } while start < bytes.count
        let checksum = Checksummer(.crc32)
        checksum.update(bytes)
        let crc = checksum.finalize()  // big-endian bytes of the CRC-32
        out.append(contentsOf: crc.reversed())
        let size = UInt32(truncatingIfNeeded: bytes.count)
        out.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) })
        return out
    }
}
