extension KeyedDecodingContainer {
    /// A member that must be of one JSON kind: nil when it is absent or null; any other kind is refused by name,
    /// and a refusal from inside it passes as it is.
    ///
    /// - Parameters:
    ///   - type: the member's type.
    ///   - key: its name.
    ///   - kind: what it must be, for the refusal (`a string`, `a list of expectations`).
    /// - Returns: the value, or nil.
    /// - Throws: `FieldRefusal` naming the member.
    func member<Value: Decodable>(_ type: Value.Type, _ key: Key, mustBe kind: String) throws -> Value? {
        guard self.contains(key), (try? self.decodeNil(forKey: key)) != true else { return nil }
        do {
            return try self.decode(type, forKey: key)
        } catch let refusal as FieldRefusal {
            throw refusal
        } catch {
            throw FieldRefusal(at: self.codingPath + [key], "must be \(kind)")
        }
    }
}
