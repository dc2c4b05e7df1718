/// An expectation as `POST /_mockcdn/verify` takes it, each member checked and refused by its name
/// (`expectations[1].status: must be a status 100-599 or a class such as 4xx`).
extension JournalExpectation: Decodable {
    enum CodingKeys: String, CodingKey {
        case method, path, query, credential, status, count
    }

    /// The longest `path` pattern and `query` text taken, in bytes.
    static let maximumPatternLength = 1024

    /// Reads an expectation, refusing a member of the wrong kind or out of range by its name.
    ///
    /// - Parameter decoder: the JSON decoder, at the expectation.
    /// - Throws: `FieldRefusal` naming the member.
    init(from decoder: any Decoder) throws {
        guard let members = try? decoder.container(keyedBy: CodingKeys.self) else {
            throw FieldRefusal(at: decoder.codingPath, "must be an object")
        }
        func refusal(_ key: CodingKeys, _ message: String) -> FieldRefusal {
            FieldRefusal(at: members.codingPath + [key], message)
        }
        if let method = try members.member(String.self, .method, mustBe: "an HTTP method such as GET") {
            // Letters of either case (a byte with bit 5 cleared is A-Z) and `-`: a method token as clients send it.
            guard (1...32).contains(method.utf8.count),
                method.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (0x41...0x5A).contains($0 & 0xDF) })
            else { throw refusal(.method, "must be an HTTP method such as GET") }
            self.method = method.uppercased()
        }
        if let path = try members.member(String.self, .path, mustBe: "a path pattern starting with /") {
            guard path.hasPrefix("/"), path.utf8.count <= Self.maximumPatternLength else {
                throw refusal(.path, "must be a path pattern starting with /, at most 1024 bytes")
            }
            self.path = PathGlob(path)
        }
        if let query = try members.member(String.self, .query, mustBe: "text the query contains") {
            guard !query.isEmpty, query.utf8.count <= Self.maximumPatternLength else {
                throw refusal(.query, "must be text the query contains, 1 to 1024 bytes")
            }
            self.query = query
        }
        if let credential = try members.member(String.self, .credential, mustBe: "a credential source") {
            guard let source = CredentialSource(rawValue: credential) else {
                let known = CredentialSource.allCases.map(\.rawValue).joined(separator: ", ")
                throw refusal(.credential, "`\(credential.prefix(64))` is not a credential source; one of \(known)")
            }
            self.credential = source
        }
        self.status = try Self.status(in: members)
        self.count = try Self.count(in: members) ?? .atLeastOnce
    }

    /// `status`: a number 100-599, or a class `1xx` to `5xx`.
    private static func status(in members: KeyedDecodingContainer<CodingKeys>) throws -> Status? {
        let message = "must be a status 100-599 or a class such as 4xx"
        guard members.contains(.status), (try? members.decodeNil(forKey: .status)) != true else { return nil }
        if let status = try? members.decode(Int.self, forKey: .status), (100...599).contains(status) {
            return .exactly(status)
        }
        if let text = try? members.decode(String.self, forKey: .status), text.utf8.count == 3,
            text.lowercased().hasSuffix("xx"), let hundreds = Int(text.prefix(1)), (1...5).contains(hundreds)
        {
            return .inClass(hundreds)
        }
        throw FieldRefusal(at: members.codingPath + [CodingKeys.status], message)
    }

    /// `count`: a number (exactly that many), or `{"min":N,"max":M}`, where a missing `min` is 0 and a missing
    /// `max` is no bound.
    private static func count(in members: KeyedDecodingContainer<CodingKeys>) throws -> Count? {
        let path = members.codingPath + [CodingKeys.count]
        guard members.contains(.count), (try? members.decodeNil(forKey: .count)) != true else { return nil }
        if let exactly = try? members.decode(Int.self, forKey: .count) {
            guard (0...Count.maximum).contains(exactly) else {
                throw FieldRefusal(at: path, "must be 0 to \(Count.maximum)")
            }
            return Count(min: exactly, max: exactly)
        }
        return try members.member(Count.self, .count, mustBe: #"a number or {"min":N,"max":M}"#)
    }
}

/// `{"min":N,"max":M}`: a missing `min` is 0, a missing `max` no bound; one of them must be given.
extension JournalExpectation.Count: Decodable {
    enum CodingKeys: String, CodingKey {
        case min, max
    }

    /// The largest bound taken.
    static let maximum = 1_000_000_000

    /// Reads the bounds, refusing one of the wrong kind or out of range, or a `min` over the `max`.
    ///
    /// - Parameter decoder: the JSON decoder, at the count.
    /// - Throws: `FieldRefusal` naming the member.
    init(from decoder: any Decoder) throws {
        let members = try decoder.container(keyedBy: CodingKeys.self)
        let bound = "a number 0 to \(Self.maximum)"
        let min = try members.member(Int.self, .min, mustBe: bound)
        let max = try members.member(Int.self, .max, mustBe: bound)
        for (key, value) in [(CodingKeys.min, min), (.max, max)] {
            if let value, !(0...Self.maximum).contains(value) {
                throw FieldRefusal(at: members.codingPath + [key], "must be \(bound)")
            }
        }
        guard min != nil || max != nil else { throw FieldRefusal(at: decoder.codingPath, "must give min, max or both") }
        if let min, let max, min > max {
            throw FieldRefusal(at: decoder.codingPath, "min (\(min)) is more than max (\(max))")
        }
        self.init(min: min ?? 0, max: max)
    }
}
