import HTTPTypes
import Hummingbird

/// One of the observers every request passes on its way in, and its answer on its way out: the route's
/// identity, the idle trim, the browser policy, the metrics, the journal, the faults.
///
/// The router runs them as middleware and the fast path (`FastReads`) runs them on the answers it makes, both
/// from one list in one order (`RequestObservers`), so an observer added to the list runs on both paths.
protocol RequestObserver: Sendable {
    /// Its part for a request the router answers: around the rest of the chain.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - context: its context; `context.notes` is the request's.
    ///   - next: the rest of the chain.
    /// - Returns: the answer.
    func observe(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response

    /// Whether the fast path may answer a request with this observer's part done by `observeFast` alone;
    /// false hands it to the router (a fault rule is armed). True unless the observer says otherwise.
    func allowsFastAnswer(_ head: HTTPRequest) -> Bool

    /// Its part for an answer the fast path made, as `observe` would have done it on that answer.
    ///
    /// - Parameters:
    ///   - request: the request, which has no body.
    ///   - context: its context, the route and credential noted.
    ///   - response: the answer, whose body is one buffer of known length.
    func observeFast(_ request: Request, context: AppRequestContext, response: inout Response)
}

extension RequestObserver {
    func allowsFastAnswer(_ head: HTTPRequest) -> Bool { true }
}
