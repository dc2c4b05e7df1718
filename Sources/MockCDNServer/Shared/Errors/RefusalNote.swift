import HTTPTypes
import Hummingbird

/// Why an error answer refused its request (`ExplainedRefusal.explanation`) and, for a credential refused
/// only because its time had passed, the expiry it named (`ExplainedRefusal.expiredAt`), carried out on the
/// answer to the journal like `CredentialNote`: internal headers the journal takes off before the answer
/// leaves.
struct RefusalNote: Equatable {
    static let header = HTTPField.Name("x-mockcdn-internal-reason")!
    static let expiryHeader = HTTPField.Name("x-mockcdn-internal-expired-at")!

    /// The refusal's code and message.
    let reason: String
    /// When the refused credential expired, Unix seconds by the MockCDN clock; nil for any other refusal.
    let expiredAt: Int64?

    /// Notes a refusal on the answer that carries it out.
    ///
    /// - Parameters:
    ///   - response: the error's answer.
    ///   - refusal: the envelope it was rendered in.
    static func mark(_ response: inout Response, with refusal: any ExplainedRefusal) {
        response.headers[Self.header] = refusal.explanation
        if let expiredAt = refusal.expiredAt { response.headers[Self.expiryHeader] = String(expiredAt) }
    }

    /// The note on an answer, taken off it.
    ///
    /// - Parameter response: the answer on its way out.
    /// - Returns: the note; nil when the answer carries none (it is no refusal).
    static func take(from response: inout Response) -> RefusalNote? {
        let expiredAt = response.takeNote(Self.expiryHeader).flatMap { Int64($0) }
        guard let reason = response.takeNote(Self.header) else { return nil }
        return RefusalNote(reason: reason, expiredAt: expiredAt)
    }
}
