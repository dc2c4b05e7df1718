/// Media types as clients declare them (RFC 9110 section 8.3.1): parsed and checked before any list looks
/// at them, so `text/html\u{0B}` or `Text/HTML ; x=1` cannot slip past a block list as another string.
public enum MediaType {
    /// The longest declared type read; real ones are far shorter.
    public static let maximumLength = 255

    /// The essence of a declared type, lower-cased `type/subtype`, or nil when it is not a media type.
    ///
    /// - Parameter text: e.g. `Image/JPEG; charset=x`.
    /// - Returns: e.g. `image/jpeg`.
    public static func essence(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maximumLength else { return nil }
        let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
        var essence = bytes[..<end]
        while let last = essence.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { essence.removeLast() }
        while let first = essence.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            essence.removeFirst()
        }
        guard let slash = essence.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let type = essence[..<slash]
        let subtype = essence[(slash + 1)...]
        guard !type.isEmpty, !subtype.isEmpty, type.allSatisfy(isTokenByte), subtype.allSatisfy(isTokenByte) else {
            return nil
        }
        // Parameters need not be understood, but they may hold no control bytes either.
        guard bytes[end...].allSatisfy({ $0 == UInt8(ascii: "\t") || (0x20..<0x7F).contains($0) }) else { return nil }
        return String(decoding: essence, as: UTF8.self).lowercased()
    }

    /// RFC 9110 `tchar`.
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Self.tokenPunctuation.contains(byte)
        }
    }

    private static let tokenPunctuation = Set("!#$%&'*+-.^_`|~".utf8)

    /// Types a browser runs script in, or parses as a document that may: served as attachments in a
    /// sandbox unless the app opts out.
    ///
    /// - Parameter essence: a lower-cased essence.
    public static func isActive(_ essence: String) -> Bool {
        Self.activeTypes.contains(essence) || essence.hasSuffix("+xml")
    }

    private static let activeTypes: Set<String> = [
        "text/html", "application/xhtml+xml", "image/svg+xml", "text/xml", "application/xml", "text/javascript",
        "application/javascript", "application/x-javascript", "text/ecmascript", "application/ecmascript",
        "text/xsl", "application/xslt+xml",
    ]

    /// Whether the first bytes of a file decide its type, so a declaration of that type must match them:
    /// these are the families `MediaSniffer` recognises.
    ///
    /// - Parameter essence: a lower-cased essence.
    public static func isBinaryFormat(_ essence: String) -> Bool {
        essence.hasPrefix("image/") || essence.hasPrefix("audio/") || essence.hasPrefix("video/")
            || ["application/pdf", "application/zip", "application/ogg"].contains(essence)
    }
}
