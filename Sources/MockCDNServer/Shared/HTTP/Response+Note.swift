import HTTPTypes
import Hummingbird

extension Response {
    /// Takes an internal note off an answer: the value of header `name`, which is removed so that it never
    /// reaches a client. The notes travel outwards with an answer, for the journal (`CredentialNote`,
    /// `RefusalNote`, `FaultNote`).
    ///
    /// - Parameter name: the note's internal header.
    /// - Returns: its value; nil when the answer carries none.
    mutating func takeNote(_ name: HTTPField.Name) -> String? {
        guard let value = self.headers[name] else { return nil }
        self.headers[name] = nil
        return value
    }
}
