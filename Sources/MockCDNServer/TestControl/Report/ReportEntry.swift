import MockCDNCore

/// One journal entry as the coverage report's predicates read it: a plain value, taken once from the entry,
/// with the query's parameter names and the path's segments split out.
struct ReportEntry: Sendable, Equatable {
    /// The entry's id (`r12`).
    let id: String
    /// The number in the id, for `since=`.
    let number: Int
    /// The request method (`-` for a request head the parser refused).
    let method: String
    /// The path as journaled (redacted, percent-encoding kept).
    let path: String
    /// The query as journaled (secrets redacted).
    let query: String
    /// Where the credential that authorised the request came from.
    let credential: CredentialSource
    /// The status answered (0 while in flight).
    let status: Int
    /// The refusal's code and message (`AccessDenied: Request has expired`), nil for an answer that refused
    /// nothing.
    let reason: String?
    /// The fault rule's id, nil when none fired.
    let fault: String?
    /// The kinds of fault the rule applied (`FaultInjector.Action.kinds`).
    let faultKinds: [String]
    /// The MockCDN clock when the request arrived, Unix seconds.
    let clock: Int64
    /// The real time when the request arrived, Unix seconds.
    let receivedAt: Double

    /// A report entry with every field given, for tests and for `init(_:)`.
    ///
    /// - Parameters: the journal entry's fields, named as there.
    init(
        id: String,
        method: String,
        path: String,
        query: String = "",
        credential: CredentialSource = .none,
        status: Int,
        reason: String? = nil,
        fault: String? = nil,
        faultKinds: [String] = [],
        clock: Int64 = 0,
        receivedAt: Double = 0
    ) {
        self.id = id
        self.number = Int(id.dropFirst()) ?? 0
        self.method = method
        self.path = path
        self.query = query
        self.credential = credential
        self.status = status
        self.reason = reason
        self.fault = fault
        self.faultKinds = faultKinds
        self.clock = clock
        self.receivedAt = receivedAt
    }

    /// The entry as it stands now.
    ///
    /// - Parameter entry: a journal entry.
    init(_ entry: Journal.Entry) {
        let state = entry.snapshot
        self.init(
            id: entry.id,
            method: entry.method,
            path: entry.path,
            query: entry.query,
            credential: state.credential,
            status: state.status,
            reason: state.reason,
            fault: state.fault,
            faultKinds: state.faultKinds,
            clock: entry.clock,
            receivedAt: entry.receivedAt
        )
    }
}
