import Foundation

/// The few elements MockCDN reads from S3's XML: S3's answers to the S3 store (an error's `Code`, a listing's
/// `Key`s, a multipart upload's `UploadId`) and the small documents S3 clients send (DeleteObjects'
/// `<Object><Key>`, CompleteMultipartUpload's `<Part>`s). Both are flat and machine-written, so a scan for
/// `<Name>text</Name>` with the five predefined entities and character references decoded is enough; a full
/// XML parser (FoundationXML) would load libxml2 into every start of the server. A document the scan cannot
/// read as the caller expects is the caller's `MalformedXML`.
public enum XMLText {
    /// The raw content of every `<name>...</name>` element, in order, entities left as written: for elements
    /// that hold other elements.
    ///
    /// - Parameters:
    ///   - name: the element's name, without a namespace prefix.
    ///   - document: the XML text, or an element's content.
    /// - Returns: each element's content.
    public static func elements(_ name: String, in document: Substring) -> [Substring] {
        let open = "<" + name + ">"
        let close = "</" + name + ">"
        var found: [Substring] = []
        var rest = document
        while let start = rest.range(of: open) {
            rest = rest[start.upperBound...]
            guard let end = rest.range(of: close) else { break }
            found.append(rest[..<end.lowerBound])
            rest = rest[end.upperBound...]
        }
        return found
    }

    /// The text of every `<name>...</name>` element, in order, entities decoded.
    ///
    /// - Parameters:
    ///   - name: the element's name.
    ///   - document: the XML text.
    /// - Returns: each element's text.
    public static func values(of name: String, in document: String) -> [String] {
        self.elements(name, in: document[...]).map(self.unescaped)
    }

    /// The text of the first `<name>...</name>` element.
    ///
    /// - Parameters:
    ///   - name: the element's name.
    ///   - document: the XML text.
    /// - Returns: its text, or nil when there is none.
    public static func value(of name: String, in document: String) -> String? {
        self.values(of: name, in: document).first
    }

    /// `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` and `&#N;` / `&#xN;` decoded; anything else kept as it is.
    ///
    /// - Parameter text: element content.
    /// - Returns: the text it stands for.
    public static func unescaped(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var result = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": result += "&"
            case "lt": result += "<"
            case "gt": result += ">"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                let number: UInt32? =
                    entity.hasPrefix("#x")
                    ? UInt32(entity.dropFirst(2), radix: 16)
                    : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let number, let scalar = Unicode.Scalar(number) {
                    result.unicodeScalars.append(scalar)
                } else {
                    result += rest[amp...semicolon]
                }
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }

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
