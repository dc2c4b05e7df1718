import Foundation

/// Text written into XML: the answers MockCDN writes (`S3XML`, S3's error envelope, the coverage report's
/// JUnit) and the documents the S3 store sends. Reading XML is `XMLReader`'s.
public enum XMLText {
    /// Text escaped for an element's content or a quoted attribute: `&`, `<`, `>`, `"` and `'` as entities,
    /// and the control characters XML 1.0 cannot carry dropped (tab and newline stay).
    ///
    /// - Parameter text: any text.
    /// - Returns: the text as XML can hold it.
    public static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\n", "\t": result.append(character)
            default:
                if let ascii = character.asciiValue, ascii < 0x20 || ascii == 0x7f { continue }
                result.append(character)
            }
        }
        return result
    }
}
