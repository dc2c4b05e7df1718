/// A journal entry as verification reads it: its fields copied once, so a request that completes meanwhile
/// cannot change a judgement half way through.
struct JournalRecord: Sendable, Equatable {
    /// `r1`, `r2`, ...
    let id: String
    /// The number in the id: arrival order.
    let number: Int
    /// The MockCDN clock when the request arrived.
    let clock: Int64
    /// The method, as sent.
    let method: String
    /// The path, as sent; secrets redacted.
    let path: String
    /// The query, as sent; secrets redacted.
    let query: String
    /// The source of the credential that authorised the request.
    let credential: CredentialSource
    /// 0 while the request is still being answered.
    let status: Int
    /// An error answer's code and message.
    let reason: String?
    /// When a credential refused for its time expired, by the MockCDN clock.
    let expiredAt: Int64?

    /// An entry from its fields (the tests' way to make one).
    init(
        id: String,
        clock: Int64,
        method: String,
        path: String,
        query: String = "",
        credential: CredentialSource = .none,
        status: Int,
        reason: String? = nil,
        expiredAt: Int64? = nil
    ) {
        self.id = id
        self.number = Self.number(of: id) ?? 0
        self.clock = clock
        self.method = method
        self.path = path
        self.query = query
        self.credential = credential
        self.status = status
        self.reason = reason
        self.expiredAt = expiredAt
    }

    /// The entry as it stands now.
    init(_ entry: Journal.Entry) {
        let state = entry.snapshot
        self.init(
            id: entry.id,
            clock: entry.clock,
            method: entry.method,
            path: entry.path,
            query: entry.query,
            credential: state.credential,
            status: state.status,
            reason: state.reason,
            expiredAt: state.expiredAt
        )
    }

    /// The number of a journal id (`r12` is 12); nil for anything else.
    static func number(of id: String) -> Int? {
        guard id.hasPrefix("r"), id.utf8.count <= 20 else { return nil }
        return Int(id.dropFirst()).flatMap { $0 > 0 ? $0 : nil }
    }

    /// `r4 GET /demo/a.jpg?w=10 -> 403`, as reports show it.
    var line: String {
        "\(self.id) \(self.method) \(self.path)\(self.query.isEmpty ? "" : "?" + self.query) -> \(self.status)"
    }
}
