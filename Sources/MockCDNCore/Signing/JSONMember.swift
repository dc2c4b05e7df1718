import Foundation

/// One member of a JWT header or payload, as far as the verifier cares: its JSON kind, and the value when it
/// is a boolean, number or string.
///
/// Decoded with `JSONDecoder`, which keeps JSON's kinds apart: `JSONSerialization` bridges `1` to a `Bool`
/// and `true` to a number, which is how `"server":1` once made a server token.
enum JSONMember: Decodable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array
    case object
    /// A number beyond what a `Double` holds (`1e400`): the decoder cannot read it, so not even its sign is
    /// known.
    case unrepresentableNumber

    /// Accepts any JSON value without reading it: nested arrays and objects only need their kind.
    private struct Skipped: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if (try? container.decode([Skipped].self)) != nil {
            self = .array
        } else if (try? container.decode([String: Skipped].self)) != nil {
            self = .object
        } else {
            // Every other JSON kind was ruled out above: what is left is a number out of a Double's range.
            self = .unrepresentableNumber
        }
    }

    /// Decodes a JWT part that must be one JSON object, UTF-8, with each member name once.
    ///
    /// - Parameters:
    ///   - bytes: the part, base64url-decoded.
    ///   - part: `header` or `payload`, for the message.
    /// - Returns: the members by name.
    /// - Throws: `JWTError` of kind `malformed`.
    static func object(_ bytes: [UInt8], part: String) throws(JWTError) -> [String: JSONMember] {
        // RFC 7519 7.2 says UTF-8. Raw NUL is never valid in UTF-8 JSON but is in UTF-16 and UTF-32, which the
        // decoder would otherwise sniff and accept, and which the member count below cannot read.
        guard !bytes.contains(0), String(validating: bytes, as: UTF8.self) != nil,
            let members = try? JSONDecoder().decode([String: JSONMember].self, from: Data(bytes))
        else { throw .malformed }
        // RFC 7515 5.2 and RFC 7519 4: reject duplicate names, or keep the last. The decoder keeps the first,
        // so a token could show one reader `"user_id":"alice"` and this one another; refusing is the safe way.
        guard topLevelMemberCount(bytes) == members.count else { throw .duplicateMember(in: part) }
        return members
    }

    /// How many members the top-level object of well-formed JSON has, counted on its bytes: one `:` each
    /// outside strings at depth 1. The decoder's dictionary holds one entry per distinct name, so a smaller
    /// count there means a repeated name.
    ///
    /// - Parameter json: UTF-8 JSON already known to be well formed.
    /// - Returns: the number of members, repeats included.
    static func topLevelMemberCount(_ json: [UInt8]) -> Int {
        var depth = 0
        var count = 0
        var inString = false
        var escaped = false
        for byte in json {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ":") where depth == 1: count += 1
            default: break
            }
        }
        return count
    }
}
