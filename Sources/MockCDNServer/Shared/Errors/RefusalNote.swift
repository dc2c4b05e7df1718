import HTTPTypes
import Hummingbird

/// Why an error answer refused its request (`ExplainedRefusal.explanation`), carried out on the answer to
/// the journal, like `CredentialNote`: an internal header the journal takes off before the answer leaves.
enum RefusalNote {
    static let header = HTTPField.Name("x-mockcdn-internal-reason")!

    /// The reason on an answer, taken off it.
    static func take(from response: inout Response) -> String? {
        response.takeNote(Self.header)
    }
}
