import MockCDNCore
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
    static func bands(width: Int, height: Int, vertical: Bool) -> Vips.Pixels {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let band = vertical ? y * 3 / height : x * 3 / width
                bytes += [red, green, blue][band]
            }
        }
        return Vips.Pixels(width: width, height: height, bands: 3, bytes: bytes)
    }

    static func png(width: Int, height: Int, vertical: Bool = false) throws -> ByteBuffer {
        try Vips.encode(bands(width: width, height: height, vertical: vertical), format: .png)
    }

    @Test("probe reads size, frames and format", arguments: [Vips.OutputFormat.png, .jpeg, .webp, .gif])
    func probe(format: Vips.OutputFormat) throws {
        let image = try Vips.encode(Self.bands(width: 120, height: 45, vertical: false), format: format)
        let header = try Vips.probe(image)
        let expected: ImageFormat = [.png: .png, .jpeg: .jpeg, .webp: .webp, .gif: .gif][format]!
        #expect(header == ImageHeader(width: 120, height: 45, frames: 1, format: expected))
        #expect(header.pixelCount == 120 * 45)
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
        let pixels = try Vips.decode(output)
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
        let pixels = try Vips.decode(output)
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
            try Vips.encode(Vips.Pixels(width: 10, height: 10, bands: 3, bytes: [1, 2, 3]), format: .png)
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
}
