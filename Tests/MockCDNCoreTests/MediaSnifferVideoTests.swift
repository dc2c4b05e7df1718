import Foundation
import MockCDNCore
import Testing

/// Video containers told from their first bytes: the ISO base media brands, and WebM and Matroska by the
/// `DocType` of their EBML header.
@Suite("MediaSniffer video")
struct MediaSnifferVideoTests {
    @Test(
        "the sample videos sniff as their container's type",
        arguments: [("sample.mp4", "video/mp4"), ("sample.mov", "video/quicktime"), ("sample.webm", "video/webm")]
    )
    func samples(name: String, type: String) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: VideoPosterTests.fixture(name))))
        #expect(MediaSniffer.sniff(Array(bytes.prefix(MediaSniffer.prefixLength))) == type)
    }

    /// An EBML header holding `elements`, each an ID and its data (sizes written as one-byte vints).
    static func ebml(_ elements: [([UInt8], [UInt8])], headerSize: [UInt8]? = nil) -> [UInt8] {
        let body = elements.flatMap { id, data in id + [0x80 | UInt8(data.count)] + data }
        return [0x1A, 0x45, 0xDF, 0xA3] + (headerSize ?? [0x80 | UInt8(body.count)]) + body
            + [0x18, 0x53, 0x80, 0x67, 0x01]  // the Segment that follows
    }

    static let version: ([UInt8], [UInt8]) = ([0x42, 0x86], [0x01])
    static let maxIDLength: ([UInt8], [UInt8]) = ([0x42, 0xF2], [0x04])

    static func docType(_ text: String) -> ([UInt8], [UInt8]) { ([0x42, 0x82], Array(text.utf8)) }

    @Test(
        "an EBML header's DocType decides: webm, matroska, else nothing",
        arguments: [
            (ebml([version, maxIDLength, docType("webm")]), "video/webm"),
            (ebml([version, maxIDLength, docType("matroska")]), "video/x-matroska"),
            // First element, and padded with NULs as the specification allows.
            (ebml([docType("matroska\0\0")]), "video/x-matroska"),
            // An 8-byte header size, as some muxers write it.
            (ebml([docType("webm")], headerSize: [0x01, 0, 0, 0, 0, 0, 0, 0x07]), "video/webm"),
            // An unknown size (all ones): the header runs to the end of the prefix.
            (ebml([version, docType("webm")], headerSize: [0xFF]), "video/webm"),
            (ebml([version, docType("webmx")]), nil),
            (ebml([version, docType("WEBM")]), nil),
            (ebml([version, maxIDLength]), nil),
        ] as [([UInt8], String?)]
    )
    func docTypes(bytes: [UInt8], type: String?) {
        #expect(MediaSniffer.sniff(bytes) == type)
    }

    @Test("a cut or malformed EBML header is not a video")
    func malformed() {
        let header = Self.ebml([Self.version, Self.docType("webm")])
        // Cut anywhere before the DocType's last byte.
        for length in 4..<(header.count - 6) {
            #expect(MediaSniffer.sniff(Array(header.prefix(length))) == nil, "cut at \(length)")
        }
        // A DocType whose size runs past the header.
        #expect(MediaSniffer.sniff([0x1A, 0x45, 0xDF, 0xA3, 0x85, 0x42, 0x82, 0x88, 0x77, 0x65]) == nil)
        // An element whose ID and size alone run past the header's end.
        #expect(MediaSniffer.sniff([0x1A, 0x45, 0xDF, 0xA3, 0x82, 0x42, 0x82, 0x84] + Array("webm".utf8)) == nil)
        // A zero byte where a vint starts (no length marker).
        #expect(MediaSniffer.sniff([0x1A, 0x45, 0xDF, 0xA3, 0x00, 0x42, 0x82, 0x84] + Array("webm".utf8)) == nil)
    }

    @Test("random bytes after the EBML magic never trap, and name a type only through a DocType")
    func randomHeaders() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &generator)
            // Small values are likely, so that sizes and IDs often land inside the prefix.
            let tail = (0..<length).map { _ in
                Bool.random(using: &generator)
                    ? UInt8.random(in: 0x80...0x88, using: &generator) : UInt8.random(in: 0...255, using: &generator)
            }
            let type = MediaSniffer.sniff([0x1A, 0x45, 0xDF, 0xA3] + tail)
            #expect(type == nil || type == "video/webm" || type == "video/x-matroska")
        }
    }

    @Test("webm and mkv have types by extension", arguments: [("webm", "video/webm"), ("mkv", "video/x-matroska")])
    func extensions(fileExtension: String, type: String) {
        #expect(MediaSniffer.typeByExtension[fileExtension] == type)
    }
}
