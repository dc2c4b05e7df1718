import HTTPTypes
import Hummingbird

/// Which fault rule shaped an answer, carried out on the answer to the journal (like `CredentialNote`): an
/// internal header the journal takes off before the answer leaves.
enum FaultNote {
    static let header = HTTPField.Name("x-mockcdn-internal-fault")!
    /// The rule's kinds of fault (`FaultInjector.Action.kinds`), comma-separated.
    static let kindsHeader = HTTPField.Name("x-mockcdn-internal-fault-kinds")!

    /// The rule id on an answer, taken off it.
    static func take(from response: inout Response) -> String? {
        response.takeNote(Self.header)
    }

    /// The kinds of fault on an answer, taken off it; empty when no rule fired.
    static func takeKinds(from response: inout Response) -> [String] {
        guard let kinds = response.takeNote(Self.kindsHeader), !kinds.isEmpty else { return [] }
        return kinds.split(separator: ",").map(String.init)
    }
}
