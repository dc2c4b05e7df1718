import Synchronization

/// What a request's handlers tell the journal: which credential authorised it and which fault rule hit
/// it. Shared by reference, because the request context is copied on its way through the router.
final class RequestRecord: Sendable {
    private struct State {
        var credential = CredentialSource.none
        var fault: String?
    }

    private let state = Mutex(State())

    var credential: CredentialSource {
        get { self.state.withLock { $0.credential } }
        set { self.state.withLock { $0.credential = newValue } }
    }

    var fault: String? {
        get { self.state.withLock { $0.fault } }
        set { self.state.withLock { $0.fault = newValue } }
    }
}
