import MockCDNCore
import MockCDNTestImages
import NIOCore
import Testing

/// The libvips shim on images these tests draw themselves: coloured bands, so a crop's kept region can be
/// told from its pixels.
@Suite("Vips")
struct VipsTests {
    static let red: [UInt8] = [255, 0, 0]
    static let green: [UInt8] = [0, 255, 0]
    static let blue: [UInt8] = [0, 0, 255]

    /// Three equal bands, red then green then blue: left to right (`vertical` false), or top to bottom.
    static func bands(width: Int, height: Int, vertical: Bool) -> TestImages.Pixels {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let band = vertical ? y * 3 / height : x * 3 / width
                bytes += [red, green, blue][band]
            }
        }
        return TestImages.Pixels(width: width, height: height, bands: 3, bytes: bytes)
    }

    static func png(width: Int, height: Int, vertical: Bool = false) throws -> ByteBuffer {
        try TestImages.encode(bands(width: width, height: height, vertical: vertical), format: .png)
    }

    @Test("probe reads size, frames and format", arguments: [Vips.OutputFormat.png, .jpeg, .webp, .gif])
    func probe(format: Vips.OutputFormat) throws {
        let image = try TestImages.encode(Self.bands(width: 120, height: 45, vertical: false), format: format)
        let header = try Vips.probe(image)
        let expected: ImageFormat = [.png: .png, .jpeg: .jpeg, .webp: .webp, .gif: .gif][format]!
        #expect(header == ImageHeader(width: 120, height: 45, frames: 1, format: expected))
        #expect(header.width * header.height * header.frames == 120 * 45)
    }

    @Test("probe refuses bytes that are no image, with vips' message")
    func probeGarbage() {
        #expect(throws: MockCDNError.imageFailure) { try Vips.probe(ByteBuffer(string: "definitely not an image")) }
        #expect(throws: MockCDNError.imageFailure) { try Vips.probe(ByteBuffer()) }
        do {
            _ = try Vips.probe(ByteBuffer(string: "definitely not an image"))
        } catch let error as MockCDNError {
            #expect(!error.detail.isEmpty)
            #expect(error.detail != "image operation failed")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("SVG is never handed to a rasteriser")
    func svgBlocked() {
        let svg = ByteBuffer(string: #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#)
        #expect(throws: MockCDNError.imageFailure) { try Vips.probe(svg) }
        #expect(throws: MockCDNError.imageFailure) {
            try Vips.resize(svg, width: 5, height: 5, mode: .fit, format: .png)
        }
    }

    struct Geometry: Sendable, CustomTestStringConvertible {
        let mode: Vips.ResizeMode
        let source: (Int, Int)
        let box: (Int, Int)
        let expected: (Int, Int)
        var testDescription: String { "\(self.mode) \(self.source) into \(self.box)" }
    }

    static let geometry: [Geometry] = [
        .init(mode: .fit, source: (300, 100), box: (150, 150), expected: (150, 50)),
        .init(mode: .fit, source: (100, 300), box: (150, 150), expected: (50, 150)),
        .init(mode: .fit, source: (300, 100), box: (600, 600), expected: (300, 100)),  // never enlarges
        .init(mode: .cover, source: (300, 100), box: (100, 100), expected: (100, 100)),
        .init(mode: .cover, source: (60, 30), box: (120, 120), expected: (120, 120)),  // cover may enlarge
        .init(mode: .force, source: (300, 100), box: (50, 70), expected: (50, 70)),
        .init(mode: .force, source: (30, 10), box: (90, 90), expected: (90, 90)),
        .init(mode: .pad, source: (300, 100), box: (150, 150), expected: (150, 150)),
        .init(mode: .pad, source: (30, 10), box: (90, 90), expected: (90, 90)),
    ]

    @Test("resize geometry", arguments: geometry)
    func resizeGeometry(case geometry: Geometry) throws {
        let source = try Self.png(width: geometry.source.0, height: geometry.source.1)
        let output = try Vips.resize(
            source,
            width: geometry.box.0,
            height: geometry.box.1,
            mode: geometry.mode,
            format: .png
        )
        let header = try Vips.probe(output)
        #expect(header.width == geometry.expected.0)
        #expect(header.height == geometry.expected.1)
        #expect(header.format == .png)
    }

    @Test(
        "cover keeps the anchored region",
        arguments: [
            (Vips.Anchor.left, false, red), (.center, false, green), (.right, false, blue),
            (.top, true, red), (.center, true, green), (.bottom, true, blue),
            // An anchor across the cut axis centres on it.
            (.top, false, green), (.left, true, green),
        ]
    )
    func coverAnchor(anchor: Vips.Anchor, vertical: Bool, expected: [UInt8]) throws {
        let source = try Self.png(width: vertical ? 100 : 300, height: vertical ? 300 : 100, vertical: vertical)
        let output = try Vips.resize(source, width: 90, height: 90, mode: .cover, anchor: anchor, format: .png)
        let pixels = try TestImages.decode(output)
        #expect(pixels.width == 90 && pixels.height == 90)
        for (x, y) in [(45, 45), (10, 10), (80, 80), (10, 80), (80, 10)] {
            #expect(Array(pixels[x, y]) == expected, "pixel (\(x), \(y))")
        }
    }

    @Test("pad fills with black around the fitted image")
    func padIsBlack() throws {
        let output = try Vips.resize(
            try Self.png(width: 300, height: 100),
            width: 150,
            height: 150,
            mode: .pad,
            format: .png
        )
        let pixels = try TestImages.decode(output)
        #expect(Array(pixels[75, 5]) == [0, 0, 0])
        #expect(Array(pixels[75, 144]) == [0, 0, 0])
        #expect(Array(pixels[75, 75]) == Self.green)
        #expect(Array(pixels[10, 75]) == Self.red)
    }

    @Test("output format and quality are honoured")
    func encodeFormats() throws {
        let source = try Self.png(width: 400, height: 400)
        let small = try Vips.resize(source, width: 200, height: 200, mode: .fit, format: .jpeg, quality: 10)
        let large = try Vips.resize(source, width: 200, height: 200, mode: .fit, format: .jpeg, quality: 100)
        #expect(try Vips.probe(small).format == .jpeg)
        #expect(small.readableBytes < large.readableBytes)
        #expect(
            try Vips.probe(try Vips.resize(source, width: 20, height: 20, mode: .fit, format: .webp)).format == .webp
        )
    }

    @Test("bad arguments are errors, not crashes")
    func badArguments() throws {
        let source = try Self.png(width: 30, height: 30)
        #expect(throws: MockCDNError.imageFailure) {
            try Vips.resize(source, width: 0, height: 10, mode: .fit, format: .png)
        }
        #expect(throws: MockCDNError.imageFailure) {
            try TestImages.encode(TestImages.Pixels(width: 10, height: 10, bands: 3, bytes: [1, 2, 3]), format: .png)
        }
        #expect(throws: MockCDNError.imageFailure) {
            try Vips.resize(ByteBuffer(string: "nope"), width: 10, height: 10, mode: .cover, format: .png)
        }
        // A thin strip cut to a wide box would need a 4096 x 9,216,000 intermediate: refused up front.
        let strip = try Self.png(width: 4, height: 9000, vertical: true)
        #expect(throws: MockCDNError.imageFailure) {
            try Vips.resize(strip, width: 4096, height: 1, mode: .cover, anchor: .bottom, format: .png)
        }
    }

    /// Files in formats Stream never accepts, each of which some libvips or ImageMagick loader would read.
    static let foreignFormats: [(name: String, bytes: [UInt8])] = [
        (
            "namespaced SVG naming a local file",
            Array(
                #"<x:svg xmlns:x="http://www.w3.org/2000/svg" xmlns:l="http://www.w3.org/1999/xlink" width="9" "#
                    .utf8
            ) + Array(#"height="9"><x:image l:href="/etc/hostname" width="9" height="9"/></x:svg>"#.utf8)
        ),
        ("TIFF", [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 64)),
        ("PPM", Array("P6\n2 2\n255\n".utf8) + [UInt8](repeating: 200, count: 12)),
        ("PSD", Array("8BPS".utf8) + [0, 1] + [UInt8](repeating: 0, count: 60)),
        ("XPM", Array("/* XPM */\nstatic char *x[] = {\"1 1 1 1\", \"a c #ff0000\", \"a\"};\n".utf8)),
        ("ImageMagick TXT", Array("# ImageMagick pixel enumeration: 1,1,255,srgb\n0,0: (255,0,0)\n".utf8)),
        ("FITS", Array("SIMPLE  =                    T".utf8) + [UInt8](repeating: 0x20, count: 100)),
    ]

    @Test(
        "bytes in no Stream image format are never decoded, whatever format the caller names",
        arguments: foreignFormats.indices
    )
    func foreignFormatsRefused(_ index: Int) {
        let bytes = ByteBuffer(bytes: Self.foreignFormats[index].bytes)
        for format in [nil] + ImageFormat.allCases.map(Optional.some) {
            #expect(throws: MockCDNError.imageFailure, "as \(String(describing: format))") {
                try Vips.probe(bytes, as: format)
            }
            #expect(throws: MockCDNError.imageFailure, "as \(String(describing: format))") {
                try Vips.resize(bytes, as: format, width: 5, height: 5, mode: .fit, format: .png)
            }
        }
    }

    @Test("an image is decoded only as the format it is: a PNG named JPEG or BMP is refused")
    func formatMustMatch() throws {
        let png = try Self.png(width: 20, height: 10)
        #expect(try Vips.probe(png, as: .png).width == 20)
        for format in [ImageFormat.jpeg, .gif, .webp, .heif, .bmp, .svg] {
            #expect(throws: MockCDNError.imageFailure) { try Vips.probe(png, as: format) }
            #expect(throws: MockCDNError.imageFailure) {
                try Vips.resize(png, as: format, width: 5, height: 5, mode: .fit, format: .png)
            }
        }
    }

    /// An uncompressed BMP, bottom-up unless `topDown`, left half red and right half blue.
    static func bmp(width: Int, height: Int, bits: Int = 24, topDown: Bool = false) -> ByteBuffer {
        let stride = (width * bits + 31) / 32 * 4
        var data: [UInt8] = Array("BM".utf8)
        func le32(_ value: Int32) { withUnsafeBytes(of: value.littleEndian) { data += $0 } }
        func le16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data += $0 } }
        le32(Int32(54 + stride * height))
        le32(0)
        le32(54)
        le32(40)
        le32(Int32(width))
        le32(Int32(topDown ? -height : height))
        le16(1)
        le16(UInt16(bits))
        for _ in 0..<6 { le32(0) }
        for _ in 0..<height {
            var row = [UInt8](repeating: 0, count: stride)
            for x in 0..<width {
                let bgr: [UInt8] = x < width / 2 ? [0, 0, 255] : [255, 0, 0]
                row.replaceSubrange(x * bits / 8..<x * bits / 8 + 3, with: bgr)
            }
            data += row
        }
        return ByteBuffer(bytes: data)
    }

    @Test("BMP is read by MockCDN's own loader: 24 and 32 bits, either row order", arguments: [24, 32], [false, true])
    func bmp(bits: Int, topDown: Bool) throws {
        let source = Self.bmp(width: 40, height: 20, bits: bits, topDown: topDown)
        #expect(try Vips.probe(source) == ImageHeader(width: 40, height: 20, frames: 1, format: .bmp))
        let output = try Vips.resize(source, width: 20, height: 20, mode: .fit, format: .png)
        let pixels = try TestImages.decode(output)
        #expect(pixels.width == 20 && pixels.height == 10)
        #expect(Array(pixels[2, 5]) == [255, 0, 0])
        #expect(Array(pixels[17, 5]) == [0, 0, 255])
    }

    @Test("BMPs MockCDN does not read are refused: compressed, paletted, truncated, absurd sizes")
    func bmpRefused() {
        var compressed = Self.bmp(width: 4, height: 4)
        compressed.setInteger(UInt32(1).littleEndian, at: 30)
        var paletted = Self.bmp(width: 4, height: 4)
        paletted.setInteger(UInt16(8).littleEndian, at: 28)
        var huge = Self.bmp(width: 4, height: 4)
        huge.setInteger(UInt32(60000).littleEndian, at: 18)
        let truncated = Self.bmp(width: 40, height: 40).getSlice(at: 0, length: 1000)!
        for bytes in [compressed, paletted, huge, truncated] {
            #expect(throws: MockCDNError.imageFailure) { try Vips.probe(bytes, as: .bmp) }
            #expect(throws: MockCDNError.imageFailure) {
                try Vips.resize(bytes, as: .bmp, width: 5, height: 5, mode: .fit, format: .png)
            }
        }
    }

    @Test("a render stops when cancelled or out of time")
    func renderControl() throws {
        let source = try Self.png(width: 1500, height: 1500)
        let cancelled = Vips.RenderControl(seconds: 60)
        cancelled.cancel()
        #expect(throws: MockCDNError.imageFailure) {
            try Vips.resize(source, width: 1400, height: 1400, mode: .force, format: .png, control: cancelled)
        }
        #expect(throws: MockCDNError.imageFailure) {
            try Vips.resize(source, width: 1400, height: 1400, mode: .force, format: .png, control: .init(seconds: 0))
        }
        let output = try Vips.resize(
            source,
            width: 1400,
            height: 1400,
            mode: .force,
            format: .png,
            control: .init(seconds: 60)
        )
        #expect(try Vips.probe(output).width == 1400)
    }
}
