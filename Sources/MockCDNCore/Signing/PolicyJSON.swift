/// A JSON value as a POST policy is read: RFC 8259, strictly (but for the two escapes S3's policy language adds to
/// JSON's, `\$` and `\v`), keeping what `JSONSerialization` and `JSONDecoder` lose. S3 tells `512` from `512.0`
/// (the second is "Invalid JSON." in a content-length-range), `null` from a string, and names the first
/// unexpected member, so numbers keep their text and objects their member order.
///
/// `Sendable` is declared: the compiler, inferring it, meets the type inside its own member tuples and reports a
/// circular reference.
enum PolicyJSON: Sendable {
    case null
    case bool(Bool)
    case string(String)
    /// A number written as an integer (no fraction, no exponent) that fits an `Int64`.
    case integer(Int64)
    /// Any other number, as written.
    case number(String)
    case array([PolicyJSON])
    /// Members in document order; a name may repeat.
    case object([(name: String, value: PolicyJSON)])

    /// The deepest nesting read. A policy needs three levels (object, conditions, condition); the bound keeps a
    /// 20 KiB run of `[` from recursing 20,000 frames deep.
    static let maximumDepth = 16

    /// Reads one JSON text, UTF-8, with nothing but white space around it.
    ///
    /// - Parameter bytes: the text.
    /// - Returns: the value, or nil when the bytes are not one well-formed JSON text.
    static func parse(_ bytes: [UInt8]) -> PolicyJSON? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        var parser = Parser(bytes: bytes)
        guard let value = parser.value(depth: 0) else { return nil }
        parser.skipWhiteSpace()
        return parser.index == bytes.count ? value : nil
    }

    /// The value as compact JSON with `, ` between items, as S3 prints a condition that failed
    /// (`["starts-with", "$key", "user/"]`).
    var rendered: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .string(let text): Self.quoted(text)
        case .integer(let value): String(value)
        case .number(let text): text
        case .array(let items): "[" + items.map(\.rendered).joined(separator: ", ") + "]"
        case .object(let members):
            "{" + members.map { Self.quoted($0.name) + ": " + $0.value.rendered }.joined(separator: ", ") + "}"
        }
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped, the rest as it is.
    static func quoted(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7f:
                let hex = String(scalar.value, radix: 16)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    // MARK: - Parser

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func skipWhiteSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) -> PolicyJSON? {
            skipWhiteSpace()
            guard index < bytes.count, depth <= PolicyJSON.maximumDepth else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map { .string($0) }
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default: return nil
            }
        }

        private mutating func literal(_ word: String) -> Bool {
            let text = Array(word.utf8)
            guard bytes[index...].starts(with: text) else { return false }
            index += text.count
            return true
        }

        private mutating func object(depth: Int) -> PolicyJSON? {
            index += 1
            var members: [(name: String, value: PolicyJSON)] = []
            skipWhiteSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhiteSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let name = string() else { return nil }
                skipWhiteSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let value = value(depth: depth + 1) else { return nil }
                members.append((name, value))
                skipWhiteSpace()
                guard index < bytes.count else { return nil }
                index += 1
                switch bytes[index - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "}"): return .object(members)
                default: return nil
                }
            }
        }

        private mutating func array(depth: Int) -> PolicyJSON? {
            index += 1
            var items: [PolicyJSON] = []
            skipWhiteSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                guard let item = value(depth: depth + 1) else { return nil }
                items.append(item)
                skipWhiteSpace()
                guard index < bytes.count else { return nil }
                index += 1
                switch bytes[index - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return .array(items)
                default: return nil
                }
            }
        }

        /// A string from its opening quote; the input is valid UTF-8 already, so the raw bytes copied are too.
        private mutating func string() -> String? {
            index += 1
            var text: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: text, as: UTF8.self)
                case 0..<0x20: return nil
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                    // S3's POST policy escapes two more than JSON's: `\$` (a dollar sign, which begins a field's
                    // name in a condition) and `\v` (a vertical tab), as its "Character escaping" table lists them.
                    case UInt8(ascii: "$"): text.append(escape)
                    case UInt8(ascii: "v"): text.append(0x0b)
                    case UInt8(ascii: "b"): text.append(0x08)
                    case UInt8(ascii: "f"): text.append(0x0c)
                    case UInt8(ascii: "n"): text.append(0x0a)
                    case UInt8(ascii: "r"): text.append(0x0d)
                    case UInt8(ascii: "t"): text.append(0x09)
                    case UInt8(ascii: "u"):
                        guard let scalar = unicodeEscape() else { return nil }
                        text.append(contentsOf: String(Character(scalar)).utf8)
                    default: return nil
                    }
                default: text.append(byte)
                }
            }
            return nil
        }

        /// The scalar of `\uXXXX` (after the `u`), or of a surrogate pair `\uD83D\uDE00`; nil for a lone
        /// surrogate.
        private mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let high = hex4() else { return nil }
            guard (0xd800...0xdbff).contains(high) else { return Unicode.Scalar(high) }
            guard bytes[index...].starts(with: Array("\\u".utf8)) else { return nil }
            index += 2
            guard let low = hex4(), (0xdc00...0xdfff).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00))
        }

        private mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count,
                let digits = [UInt8](hexString: String(decoding: bytes[index..<index + 4], as: UTF8.self))
            else { return nil }
            index += 4
            return UInt32(digits[0]) << 8 | UInt32(digits[1])
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
        private mutating func number() -> PolicyJSON? {
            let start = index
            func digits() -> Int {
                let first = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                return index - first
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else if digits() == 0 {
                return nil
            }
            var integral = true
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                integral = false
                guard digits() > 0 else { return nil }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                integral = false
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard digits() > 0 else { return nil }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if integral, let value = Int64(text) { return .integer(value) }
            return .number(text)
        }
    }
}
