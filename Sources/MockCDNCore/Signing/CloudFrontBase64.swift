import Foundation

/// CloudFront's URL-safe base64: standard base64 with `+` -> `-`, `=` -> `_`, `/` -> `~`.
public enum CloudFrontBase64 {
    /// Encodes bytes in CloudFront's alphabet.
    ///
    /// - Parameter bytes: the bytes (a signature or a policy).
    /// - Returns: the text, safe in a query string.
    public static func encode(_ bytes: some ContiguousBytesView) -> String {
        let standard = bytes.withBytes { Data($0).base64EncodedString() }
        return String(decoding: standard.utf8.map(Self.toCloudFront), as: UTF8.self)
    }

    /// Decodes CloudFront's alphabet (the standard one is accepted too).
    ///
    /// - Parameter text: the encoded text.
    /// - Returns: the bytes, or nil when the text is not base64.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        // Byte by byte: mapping Characters walks grapheme clusters, which costs more than the RSA check.
        Data(base64Encoded: Data(text.utf8.map(Self.toStandard))).map { [UInt8]($0) }
    }

    private static func toCloudFront(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "+"): UInt8(ascii: "-")
        case UInt8(ascii: "="): UInt8(ascii: "_")
        case UInt8(ascii: "/"): UInt8(ascii: "~")
        default: byte
        }
    }

    private static func toStandard(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "-"): UInt8(ascii: "+")
        case UInt8(ascii: "_"): UInt8(ascii: "=")
        case UInt8(ascii: "~"): UInt8(ascii: "/")
        default: byte
        }
    }
}
