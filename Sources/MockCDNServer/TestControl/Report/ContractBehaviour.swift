/// One row of the contract coverage report: a behaviour of the contract that a journal entry shows a client
/// exercised.
public struct ContractBehaviour: Sendable {
    /// Stable and unique (`media.status.206`): reports, JUnit test names and `openapi.yaml` use it.
    public let id: String
    /// The API surface the row is reported under.
    public let surface: ContractSurface
    /// What the behaviour is, for people.
    public let title: String
    /// How a journal entry is recognised, in words, naming the journal fields it reads (the docs show it).
    public let rule: String
    /// Whether an entry exercised the behaviour.
    let matches: @Sendable (JournalRecord) -> Bool

    /// A row.
    ///
    /// - Parameters:
    ///   - id: stable id, `surface.what[.detail]`.
    ///   - surface: the API surface it belongs to.
    ///   - title: what the behaviour is.
    ///   - rule: how an entry is recognised, in words.
    ///   - matches: the same, in code.
    init(
        _ id: String,
        _ surface: ContractSurface,
        _ title: String,
        rule: String,
        matches: @escaping @Sendable (JournalRecord) -> Bool
    ) {
        self.id = id
        self.surface = surface
        self.title = title
        self.rule = rule
        self.matches = matches
    }
}
