import Foundation

/// CloudFront's URL-safe base64: standard base64 with `+` -> `-`, `=` -> `_`, `/` -> `~`.
public enum CloudFrontBase64 {
    /// Encodes bytes in CloudFront's alphabet.
    ///
    /// - Parameter bytes: the bytes (a signature or a policy).
    /// - Returns: the text, safe in a query string.
    public static func encode(_ bytes: some ContiguousBytesView) -> String {
        let standard = bytes.withBytes { Data($0).base64EncodedString() }
        return String(
            standard.map { character -> Character in
                switch character {
                case "+": "-"
                case "=": "_"
                case "/": "~"
                default: character
                }
            }
        )
    }

    /// Decodes CloudFront's alphabet (the standard one is accepted too).
    ///
    /// - Parameter text: the encoded text.
    /// - Returns: the bytes, or nil when the text is not base64.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let standard = String(
            text.map { character -> Character in
                switch character {
                case "-": "+"
                case "_": "="
                case "~": "/"
                default: character
                }
            }
        )
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}
