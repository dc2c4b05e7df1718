import Foundation

/// RFC 2047 encoded-words (`=?UTF-8?Q?Hello_World=C3=A9?=`): how S3 carries user metadata with characters
/// past ASCII in a header. S3's user guide ("Working with object metadata"): "Values of such headers are
/// character decoded as per RFC 2047 before storing and encoded as per RFC 2047 to make them mail-safe before
/// returning. If the string contains only US-ASCII characters, it is presented as is."
///
/// The encoding is JavaMail's `MimeUtility.encodeText(text, "UTF-8", null)`, whose choices S3's recorded
/// answers show: Q for a value mostly of ASCII, cut into several words when long (aws-amplify/aws-sdk-ios#241:
/// `=?UTF-8?Q?Workout_Completed:_Congratulations!__You_just_comp?= =?UTF-8?Q?leted_the_=E2=80=9C...`), B
/// (base64) for one mostly past it (boto/boto3#3063; the user guide's `=?UTF-8?B?w4PChE3Dg8KE...?=`).
public enum EncodedWords {
    /// The longest encoded text of one word: 75 characters less `=?`, `UTF-8`, `?Q?` and `?=`.
    static let wordText = 68 - "UTF-8".count

    /// `text` as S3 sends a metadata value back: as it is when every character is printable ASCII (or a
    /// tab); otherwise its UTF-8 in encoded-words of at most 75 characters, separated by spaces.
    ///
    /// - Parameter text: the stored value.
    /// - Returns: the header value, ASCII only.
    public static func encode(_ text: String) -> String {
        let units = Array(text.utf16)
        // JavaMail counts UTF-16 units: control characters but tab, CR and LF, DEL and above are not ASCII.
        let foreign = units.count { $0 >= 0x7F || ($0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D) }
        guard foreign > 0 else { return text }
        let base64 = units.count - foreign <= foreign
        var words: [String] = []
        self.encode(units[...], base64: base64, into: &words)
        return words.joined(separator: " ")
    }

    /// Encodes `units` as one word when it fits, else its two halves in turn (a surrogate pair kept whole), as
    /// JavaMail's `doEncode` cuts a value.
    private static func encode(_ units: ArraySlice<UInt16>, base64: Bool, into words: inout [String]) {
        let bytes = Array(String(decoding: units, as: UTF16.self).utf8)
        let length = base64 ? (bytes.count + 2) / 3 * 4 : bytes.reduce(0) { $0 + (self.quoted($1) ? 3 : 1) }
        if length > self.wordText, units.count > 1 {
            var split = units.startIndex + units.count / 2
            if UTF16.isLeadSurrogate(units[split - 1]) { split -= 1 }
            if split > units.startIndex { self.encode(units[..<split], base64: base64, into: &words) }
            self.encode(units[split...], base64: base64, into: &words)
            return
        }
        guard !base64 else {
            words.append("=?UTF-8?B?" + Data(bytes).base64EncodedString() + "?=")
            return
        }
        let hex = Array("0123456789ABCDEF".utf8)
        var word = Array("=?UTF-8?Q?".utf8)
        for byte in bytes {
            if byte == UInt8(ascii: " ") {
                word.append(UInt8(ascii: "_"))
            } else if self.quoted(byte) {
                word += [UInt8(ascii: "="), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            } else {
                word.append(byte)
            }
        }
        words.append(String(decoding: word + Array("?=".utf8), as: UTF8.self))
    }

    /// Q-encoded text's bytes: `_` is a space, `=XX` the byte XX; nil for a `=` without two hex digits.
    private static func unquoted(_ text: Substring) -> [UInt8]? {
        let input = Array(text.utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < input.count {
            switch input[index] {
            case UInt8(ascii: "_"):
                bytes.append(UInt8(ascii: " "))
                index += 1
            case UInt8(ascii: "="):
                guard index + 2 < input.count, let high = self.hexValue(input[index + 1]),
                    let low = self.hexValue(input[index + 2])
                else { return nil }
                bytes.append(high << 4 | low)
                index += 3
            default:
                bytes.append(input[index])
                index += 1
            }
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// Whether Q-encoding writes `byte` as `=XX` in text (RFC 2047 section 5 (1)): controls, DEL and above,
    /// and `=`, `_`, `?`.
    private static func quoted(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "=") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "?")
    }

    /// An encoded-word: `=?charset?encoding?text?=` (a computed pattern: `Regex` is not `Sendable`).
    private static var word: Regex<(Substring, Substring, Substring, Substring)> {
        #/=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/#
    }

    /// A header value with its encoded-words decoded, as S3 stores a metadata value: each word in UTF-8,
    /// US-ASCII or ISO-8859-1, B- or Q-encoded, becomes its text, and white space between two words goes
    /// (RFC 2047 section 6.2). Everything else, a word that cannot be decoded included, stays as it is.
    ///
    /// - Parameter value: the header's value.
    /// - Returns: the text.
    public static func decode(_ value: String) -> String {
        guard value.contains("=?") else { return value }
        var text = ""
        var rest = value[...]
        var afterWord = false
        let word = self.word
        while let match = rest.firstMatch(of: word) {
            let between = rest[..<match.range.lowerBound]
            guard let decoded = self.decode(charset: match.1, encoding: match.2, text: match.3) else {
                text += rest[..<match.range.upperBound]
                rest = rest[match.range.upperBound...]
                afterWord = false
                continue
            }
            if !(afterWord && between.allSatisfy(\.isWhitespace)) { text += between }
            text += decoded
            rest = rest[match.range.upperBound...]
            afterWord = true
        }
        return text + rest
    }

    /// One word's text, or nil for a charset or encoding it cannot be read in.
    private static func decode(charset: Substring, encoding: Substring, text: Substring) -> String? {
        // RFC 2231 adds a language after `*`.
        let name = charset.split(separator: "*", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        guard let bytes = encoding.lowercased() == "b" ? Base64.decode(text, .standard) : self.unquoted(text) else {
            return nil
        }
        switch name {
        case "utf-8", "utf8": return String(validating: bytes, as: UTF8.self)
        case "us-ascii": return bytes.allSatisfy { $0 < 0x80 } ? String(decoding: bytes, as: UTF8.self) : nil
        case "iso-8859-1", "latin1": return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default: return nil
        }
    }
}
