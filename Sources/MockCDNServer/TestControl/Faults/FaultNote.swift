import HTTPTypes
import Hummingbird

/// Which fault rule shaped an answer, carried out on the answer to the journal (like `CredentialNote`): an
/// internal header the journal takes off before the answer leaves.
enum FaultNote {
    static let header = HTTPField.Name("x-mockcdn-internal-fault")!

    /// The rule id on an answer, taken off it.
    static func take(from response: inout Response) -> String? {
        response.takeNote(Self.header)
    }
}
