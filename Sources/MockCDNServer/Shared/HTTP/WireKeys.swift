import Foundation
import Synchronization

/// The one key strategy of MockCDN's JSON answers: Swift's camelCase names, acronyms included, on the wire
/// in snake_case (`userID` as `user_id`, `thumbURL` as `thumb_url`, `uploadURLTTL` as `upload_url_ttl`), so
/// answer types need no `CodingKeys` to spell their members. A key that is not lowerCamelCase (already
/// snake_case, or CometChat's `SECURED_MEDIA_HOST`, or a header name in a dictionary) is written as it is.
enum WireKeys {
    /// The acronyms MockCDN's names use, each one word on the wire.
    static let acronyms = ["TTL", "URL", "JWT", "FAT", "API", "ID", "MB", "MS", "UI"]

    /// Names seen before: the encoder asks for every member of every answer, and the names are the answer
    /// types' own, so each is worked out once. Bounded, since a dictionary's keys pass through here too.
    private static let seen = Mutex<[String: String]>([:])
    private static let seenLimit = 4096

    /// `name` in snake_case when it is lowerCamelCase, else as it is; remembered.
    static func wireName(_ name: String) -> String {
        if let known = Self.seen.withLock({ $0[name] }) { return known }
        let wire = Self.snakeCase(name)
        Self.seen.withLock { if $0.count < Self.seenLimit { $0[name] = wire } }
        return wire
    }

    /// `name` in snake_case when it is lowerCamelCase, else as it is.
    static func snakeCase(_ name: String) -> String {
        guard let first = name.unicodeScalars.first, CharacterSet.lowercaseLetters.contains(first),
            name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) && $0.isASCII }),
            name.contains(where: \.isUppercase)
        else { return name }
        var words: [String] = []
        var index = name.startIndex
        while index < name.endIndex {
            let rest = name[index...]
            if rest.first!.isLowercase || rest.first!.isNumber {
                let end = rest.firstIndex(where: \.isUppercase) ?? name.endIndex
                words.append(String(rest[..<end]))
                index = end
            } else if let acronym = Self.acronyms.first(where: { rest.hasPrefix($0) && Self.endsWord(rest, after: $0) })
            {
                words.append(acronym)
                index = name.index(index, offsetBy: acronym.count)
            } else {
                // A capitalised word: its capital, then its lower-case letters and digits.
                let start = name.index(after: index)
                let end = name[start...].firstIndex(where: \.isUppercase) ?? name.endIndex
                words.append(String(name[index..<end]))
                index = end
            }
        }
        return words.map { $0.lowercased() }.joined(separator: "_")
    }

    /// Whether an acronym at the start of `rest` ends a word there: the end, another capital, or a digit.
    private static func endsWord(_ rest: Substring, after acronym: String) -> Bool {
        let next = rest.dropFirst(acronym.count).first
        return next.map { $0.isUppercase || $0.isNumber } ?? true
    }

    /// The strategy MockCDN's response encoder uses.
    static let encoding = JSONEncoder.KeyEncodingStrategy.custom { path in
        Key(WireKeys.wireName(path.last!.stringValue))
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(_ string: String) { self.stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
