import HTTPTypes
import Hummingbird

/// The observers every request passes, outermost first: the one list the router and the fast path both run.
///
/// The router gets each as a middleware, in order, in front of every route (`add(to:)`). The fast path asks
/// each whether it may answer a request (`allowsFastAnswer`) and, once it has, gives each the answer from the
/// innermost out (`observeFast`), the order in which the answer passes them on the router's path.
struct RequestObservers: Sendable {
    /// Outermost first.
    let all: [any RequestObserver]

    init(_ all: [any RequestObserver]) {
        self.all = all
    }

    /// Adds each observer to the router as a middleware, outermost first.
    func add(to router: some RouterMethods<AppRequestContext>) {
        for observer in self.all { _ = router.add(middleware: Middleware(observer: observer)) }
    }

    /// Whether every observer lets the fast path answer `head`.
    func allowsFastAnswer(_ head: HTTPRequest) -> Bool {
        self.all.allSatisfy { $0.allowsFastAnswer(head) }
    }

    /// Gives each observer, innermost first, an answer the fast path made.
    func observeFast(_ request: Request, context: AppRequestContext, response: inout Response) {
        for observer in self.all.reversed() { observer.observeFast(request, context: context, response: &response) }
    }

    /// An observer as the router runs it.
    private struct Middleware: RouterMiddleware {
        typealias Context = AppRequestContext

        let observer: any RequestObserver

        func handle(
            _ request: Request,
            context: AppRequestContext,
            next: (Request, AppRequestContext) async throws -> Response
        ) async throws -> Response {
            try await self.observer.observe(request, context: context, next: next)
        }
    }
}
