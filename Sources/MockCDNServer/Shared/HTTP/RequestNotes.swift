import Synchronization

/// What is learnt about one request while it is answered, for the observers that record it (the journal, the
/// metrics): the route it was matched to, the credential that authorised it, why it was refused, and the fault
/// that fired.
///
/// One per request, carried in its context (`AppRequestContext.notes`) from the first observer inwards, so every
/// layer writes the same value: the route observer or the fast path the route, a route its credential
/// (`CredentialNote.answer`), a group's `ErrorEnvelopeMiddleware` the refusal, the fault observer its rule.
/// The journal and the metrics read it once the answer is made. Nothing of it travels on the answer.
final class RequestNotes: Sendable {
    /// A fault rule that fired on the request.
    struct Fault: Sendable, Equatable {
        let id: String
        /// Its kinds of fault (`delay`, `status`, `throttle`, `truncate`, `reset`).
        let kinds: [String]
    }

    private struct State {
        var route: String?
        var credential = CredentialSource.none
        var refusal: RefusalNote?
        var fault: Fault?
    }

    private let state = Mutex(State())

    /// The route the request was matched to (`/{app}/**`); nil for a request no route matched.
    var route: String? {
        get { self.state.withLock { $0.route } }
        set { self.state.withLock { $0.route = newValue } }
    }

    /// The credential that authorised the request; `none` for a request refused before one did, or that
    /// needs none.
    var credential: CredentialSource {
        get { self.state.withLock { $0.credential } }
        set { self.state.withLock { $0.credential = newValue } }
    }

    /// Why an error answer refused the request; nil for any other answer.
    var refusal: RefusalNote? {
        get { self.state.withLock { $0.refusal } }
        set { self.state.withLock { $0.refusal = newValue } }
    }

    /// The fault rule that fired; nil when none did.
    var fault: Fault? {
        get { self.state.withLock { $0.fault } }
        set { self.state.withLock { $0.fault = newValue } }
    }
}
