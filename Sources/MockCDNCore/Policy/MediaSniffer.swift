import Foundation

/// Tells a file's type from its first bytes, so a declared Content-Type can be checked.
public enum MediaSniffer {
    /// Types for files whose bytes say nothing (text formats), by lower-case extension.
    public static let typeByExtension: [String: String] = [
        "txt": "text/plain", "md": "text/markdown", "csv": "text/csv", "json": "application/json",
        "html": "text/html", "htm": "text/html", "xml": "application/xml", "log": "text/plain",
        "pdf": "application/pdf", "mp3": "audio/mpeg", "m4a": "audio/mp4", "mp4": "video/mp4", "mov": "video/quicktime",
        "webm": "video/webm", "mkv": "video/x-matroska",
        "zip": "application/zip", "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ]

    /// How many leading bytes `sniff` looks at.
    public static let prefixLength = 512

    /// The MIME type the bytes start like, or nil when they match nothing known.
    ///
    /// - Parameter prefix: the first bytes of the file (up to `prefixLength`).
    /// - Returns: e.g. `image/png`.
    public static func sniff(_ prefix: [UInt8]) -> String? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            prefix.count >= offset + magic.count && Array(prefix[offset..<offset + magic.count]) == magic
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }

        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if ascii("GIF87a") || ascii("GIF89a") { return "image/gif" }
        if ascii("RIFF") && ascii("WEBP", at: 8) { return "image/webp" }
        if ascii("BM") && prefix.count >= 26 { return "image/bmp" }
        if ascii("%PDF-") { return "application/pdf" }
        if ascii("ftyp", at: 4), prefix.count >= 12 {
            let brand = String(decoding: prefix[8..<12], as: UTF8.self)
            switch brand {
            case "heic", "heix", "heim", "heis": return "image/heic"
            case "hevc", "hevx", "hevm", "hevs": return "image/heic-sequence"
            case "mif1": return "image/heif"
            case "msf1": return "image/heif-sequence"
            case "M4A ", "M4B ": return "audio/mp4"
            case "qt  ": return "video/quicktime"
            default: return "video/mp4"
            }
        }
        if ascii("ID3") || starts([0xFF, 0xFB]) || starts([0xFF, 0xF3]) || starts([0xFF, 0xF2]) {
            return "audio/mpeg"
        }
        if ascii("OggS") { return "audio/ogg" }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return Self.matroskaType(prefix) }
        if ascii("PK\u{03}\u{04}") { return "application/zip" }
        return markup(prefix)
    }

    /// The type an EBML file's `DocType` names: `video/webm` or `video/x-matroska`; nil for any other
    /// document type, or when the header does not fit in the prefix.
    ///
    /// The EBML header (RFC 8794; Matroska and WebM are EBML documents) follows the magic: its size, then
    /// elements, each an ID, a size and that many bytes. Muxers write `DocType` (ID `42 82`) among them.
    private static func matroskaType(_ prefix: [UInt8]) -> String? {
        /// A variable-size integer at `offset` (RFC 8794 section 4): its length comes from the leading zero
        /// bits of the first byte; `keepMarker` keeps the length bit (element IDs keep it, sizes do not).
        func vint(at offset: Int, keepMarker: Bool) -> (value: UInt64, length: Int)? {
            guard offset < prefix.count, prefix[offset] != 0 else { return nil }
            let length = prefix[offset].leadingZeroBitCount + 1
            guard offset + length <= prefix.count else { return nil }
            var value = UInt64(keepMarker ? prefix[offset] : prefix[offset] & (0xFF >> length))
            for byte in prefix[(offset + 1)..<(offset + length)] { value = value << 8 | UInt64(byte) }
            return (value, length)
        }
        guard let header = vint(at: 4, keepMarker: false) else { return nil }
        // An unknown or oversized header size still ends where the prefix does.
        let end = min(prefix.count, 4 + header.length + Int(min(header.value, UInt64(prefix.count))))
        var offset = 4 + header.length
        while offset < end {
            guard let id = vint(at: offset, keepMarker: true), id.length <= 4,
                let size = vint(at: offset + id.length, keepMarker: false)
            else { return nil }
            let start = offset + id.length + size.length
            guard start <= end, size.value <= UInt64(end - start) else { return nil }
            let data = prefix[start..<(start + Int(size.value))]
            if id.value == 0x4282 {
                // A string element may be padded with NULs.
                switch String(decoding: data.prefix { $0 != 0 }, as: UTF8.self) {
                case "webm": return "video/webm"
                case "matroska": return "video/x-matroska"
                default: return nil
                }
            }
            offset = start + Int(size.value)
        }
        return nil
    }

    /// Tags that make markup HTML, as browsers sniff it (WHATWG MIME Sniffing, section 7.1).
    private static let htmlTags = [
        "<!doctype html", "<html", "<head", "<script", "<iframe", "<h1", "<div", "<font", "<table", "<a", "<style",
        "<title", "<b", "<body", "<br", "<p", "<!--",
    ]

    /// Markup, told apart as browsers would treat it: SVG in any spelling of its root (`<svg`, a prefixed
    /// `<x:svg`, or the SVG namespace anywhere), HTML by its leading tag, other XML by its declaration.
    private static func markup(_ prefix: [UInt8]) -> String? {
        let text = String(decoding: prefix, as: UTF8.self).lowercased()
        let trimmed = text.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        guard trimmed.hasPrefix("<") else { return nil }
        if trimmed.contains("<svg") || trimmed.contains(":svg") || trimmed.contains("http://www.w3.org/2000/svg") {
            return "image/svg+xml"
        }
        for tag in htmlTags where trimmed.hasPrefix(tag) {
            let next = trimmed.dropFirst(tag.count).first
            if tag == "<!--" || next == nil || next == ">" || next == " " || next == "\t" || next == "\n" {
                return "text/html"
            }
        }
        if trimmed.hasPrefix("<?xml") { return "application/xml" }
        return nil
    }
}
