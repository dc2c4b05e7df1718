import Foundation

/// Tells a file's type from its first bytes, so a declared Content-Type can be checked.
public enum MediaSniffer {
    /// Types for files whose bytes say nothing (text formats), by lower-case extension.
    public static let typeByExtension: [String: String] = [
        "txt": "text/plain", "md": "text/markdown", "csv": "text/csv", "json": "application/json",
        "html": "text/html", "htm": "text/html", "xml": "application/xml", "log": "text/plain",
        "pdf": "application/pdf", "mp3": "audio/mpeg", "m4a": "audio/mp4", "mp4": "video/mp4", "mov": "video/quicktime",
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
        if ascii("PK\u{03}\u{04}") { return "application/zip" }
        if isSVG(prefix) { return "image/svg+xml" }
        return nil
    }

    /// SVG is XML text whose root element is `svg`: look for `<svg` after an optional BOM, XML declaration,
    /// comments and doctype.
    private static func isSVG(_ prefix: [UInt8]) -> Bool {
        guard let text = String(bytes: prefix, encoding: .utf8) ?? String(bytes: prefix.dropLast(3), encoding: .utf8)
        else { return false }
        let trimmed = text.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        guard trimmed.hasPrefix("<") else { return false }
        return trimmed.range(of: "<svg") != nil
    }
}
