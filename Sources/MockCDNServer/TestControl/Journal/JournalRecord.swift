/// A journal entry as a plain value, its fields copied once, so a request that completes meanwhile cannot
/// change a judgement half way through: what verification (`TestControl/Verify/`) and the coverage report's
/// predicates (`TestControl/Report/`) read.
struct JournalRecord: Sendable, Equatable {
    /// `r1`, `r2`, ...
    let id: String
    /// The number in the id: arrival order.
    let number: Int
    /// The method, as sent (`-` for a request head the parser refused).
    let method: String
    /// The path, as sent; secrets redacted, percent-encoding kept.
    let path: String
    /// The query, as sent; secrets redacted.
    let query: String
    /// The route it was matched to (`/{app}/**`); nil when none was.
    let route: String?
    /// The source of the credential that authorised the request.
    let credential: CredentialSource
    /// 0 while the request is still being answered.
    let status: Int
    /// An error answer's code and message (`AccessDenied: Request has expired`), nil for an answer that
    /// refused nothing.
    let reason: String?
    /// The fault rule's id, nil when none fired.
    let fault: String?
    /// The kinds of fault the rule applied (`FaultInjector.Action.kinds`).
    let faultKinds: [String]
    /// The MockCDN clock when the request arrived, Unix seconds.
    let clock: Int64
    /// The real time when the request arrived, Unix seconds.
    let receivedAt: Double
    /// When a credential refused for its time expired, by the MockCDN clock.
    let expiredAt: Int64?

    /// An entry from its fields (the tests' way to make one).
    init(
        id: String,
        method: String,
        path: String,
        query: String = "",
        route: String? = nil,
        credential: CredentialSource = .none,
        status: Int,
        reason: String? = nil,
        fault: String? = nil,
        faultKinds: [String] = [],
        clock: Int64 = 0,
        receivedAt: Double = 0,
        expiredAt: Int64? = nil
    ) {
        self.id = id
        self.number = Self.number(of: id) ?? 0
        self.method = method
        self.path = path
        self.query = query
        self.route = route
        self.credential = credential
        self.status = status
        self.reason = reason
        self.fault = fault
        self.faultKinds = faultKinds
        self.clock = clock
        self.receivedAt = receivedAt
        self.expiredAt = expiredAt
    }

    /// The entry as it stands now.
    init(_ entry: Journal.Entry) {
        let state = entry.snapshot
        self.init(
            id: entry.id,
            method: entry.method,
            path: entry.path,
            query: entry.query,
            route: entry.route,
            credential: state.credential,
            status: state.status,
            reason: state.reason,
            fault: state.fault,
            faultKinds: state.faultKinds,
            clock: entry.clock,
            receivedAt: entry.receivedAt,
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
