import CTestImages
import MockCDNCore
import NIOCore

/// Images made from raw pixels, and decoded back to pixels, for tests. The server never does either: it
/// only resizes what was uploaded.
public enum TestImages {
    /// Decoded 8-bit pixels, interleaved, row-major.
    public struct Pixels: Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// Channels per pixel: 1 (grey), 3 (RGB) or 4 (RGBA).
        public var bands: Int
        public var bytes: [UInt8]

        public init(width: Int, height: Int, bands: Int, bytes: [UInt8]) {
            self.width = width
            self.height = height
            self.bands = bands
            self.bytes = bytes
        }

        /// The channel values of the pixel at (`x`, `y`).
        public subscript(x: Int, y: Int) -> ArraySlice<UInt8> {
            let start = (y * self.width + x) * self.bands
            return self.bytes[start..<start + self.bands]
        }
    }

    /// Encodes pixels.
    ///
    /// - Parameters:
    ///   - pixels: the pixels.
    ///   - format: the output format.
    ///   - quality: 1...100, for JPEG and WebP.
    ///   - frameHeight: makes the pixels a strip of frames this tall (an animated GIF or WebP).
    /// - Returns: the encoded image.
    /// - Throws: `MockCDNError.imageFailure` when the buffer does not match its size or encoding fails.
    public static func encode(
        _ pixels: Pixels,
        format: Vips.OutputFormat,
        quality: Int = 90,
        frameHeight: Int? = nil
    ) throws -> ByteBuffer {
        try Vips.initialize()
        let options =
            switch format {
            case .jpeg: ".jpg[Q=\(quality),strip]"
            case .webp: ".webp[Q=\(quality),strip]"
            case .png: ".png[strip]"
            case .gif: ".gif[strip]"
            }
        return try pixels.bytes.withUnsafeBytes { bytes in
            try Self.output { out, length, error in
                CTestImages_encode(
                    bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!,
                    bytes.count,
                    Int32(clamping: pixels.width),
                    Int32(clamping: pixels.height),
                    Int32(clamping: pixels.bands),
                    Int32(clamping: frameHeight ?? 0),
                    options,
                    &out,
                    &length,
                    &error
                )
            }
        }
    }

    /// Decodes the first frame of an encoded image to 8-bit pixels.
    ///
    /// - Throws: `MockCDNError.imageFailure` when libvips cannot decode it.
    public static func decode(_ data: ByteBuffer) throws -> Pixels {
        try Vips.initialize()
        var width: Int32 = 0
        var height: Int32 = 0
        var bands: Int32 = 0
        let bytes = try data.withUnsafeReadableBytes { bytes in
            try Self.output { out, length, error in
                CTestImages_decode(
                    bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!,
                    bytes.count,
                    &out,
                    &length,
                    &width,
                    &height,
                    &bands,
                    &error
                )
            }
        }
        return Pixels(width: Int(width), height: Int(height), bands: Int(bands), bytes: Array(bytes.readableBytesView))
    }

    private static func output(
        _ body: (inout UnsafeMutableRawPointer?, inout Int, inout UnsafeMutablePointer<CChar>?) -> Int32
    ) throws -> ByteBuffer {
        var out: UnsafeMutableRawPointer?
        var length = 0
        var error: UnsafeMutablePointer<CChar>?
        let status = body(&out, &length, &error)
        defer {
            CTestImages_free(error)
            CTestImages_free(out)
        }
        guard status == 1, let out else {
            throw MockCDNError.imageFailure(error.map { String(cString: $0) } ?? "vips failed")
        }
        return ByteBuffer(bytes: UnsafeRawBufferPointer(start: out, count: length))
    }
}
