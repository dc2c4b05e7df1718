import Hummingbird
import Synchronization

/// What a request's handlers tell the journal (which credential authorised it, which fault rule hit it),
/// and its parsed query, so the middleware and the route parse it once between them. Shared by reference,
/// because the request context is copied on its way through the router.
final class RequestRecord: Sendable {
    private struct State {
        var credential = CredentialSource.none
        var fault: String?
        var query: QueryItems?
    }

    private let state = Mutex(State())

    var credential: CredentialSource {
        get { self.state.withLock { $0.credential } }
        set { self.state.withLock { $0.credential = newValue } }
    }

    /// The request's query, parsed on first use.
    func query(of request: Request) -> QueryItems {
        self.state.withLock { state in
            if let query = state.query { return query }
            let query = QueryItems(request.uri.query)
            state.query = query
            return query
        }
    }

    var fault: String? {
        get { self.state.withLock { $0.fault } }
        set { self.state.withLock { $0.fault = newValue } }
    }
}
