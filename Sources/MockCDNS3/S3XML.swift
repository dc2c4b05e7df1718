import Foundation

/// The few elements MockCDN reads from S3's XML answers (an error's `Code` and `Message`, a listing's `Key`s and
/// continuation token, a multipart upload's `UploadId`). S3's answers are flat and machine-written, so a scan
/// for `<Name>text</Name>` with the five predefined entities and character references decoded is enough; a
/// full XML parser (FoundationXML) would load libxml2 into every start of the server.
enum S3XML {
    /// The text of every `<name>...</name>` element, in order.
    static func values(of name: String, in document: String) -> [String] {
        let open = "<" + name + ">"
        let close = "</" + name + ">"
        var found: [String] = []
        var rest = document[...]
        while let start = rest.range(of: open) {
            rest = rest[start.upperBound...]
            guard let end = rest.range(of: close) else { break }
            found.append(self.unescaped(rest[..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return found
    }

    /// The text of the first `<name>...</name>` element.
    static func value(of name: String, in document: String) -> String? {
        self.values(of: name, in: document).first
    }

    /// `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` and `&#N;` / `&#xN;` decoded; anything else kept as it is.
    static func unescaped(_ text: Substring) -> String {
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

    /// Text escaped for an element's content.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.append(character)
            }
        }
        return result
    }
}
