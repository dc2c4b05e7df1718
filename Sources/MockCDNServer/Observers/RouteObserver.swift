import Hummingbird

/// The route's identity, outermost: the route the router matched goes in the request's notes
/// (`RequestNotes.route`), where the metrics and the journal read it, and the query is parsed once for every
/// layer below (`AppRequestContext.query`). No layer works the route out from the path again.
///
/// The fast path answers one route (`MediaReads.route`) and notes it itself, with the query it parsed to
/// decide it may answer: this observer has nothing left to do there.
struct RouteObserver: RequestObserver {
    func observe(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        context.notes.route = context.endpointPath
        var context = context
        context.query = QueryItems(request.uri.query)
        return try await next(request, context)
    }

    func observeFast(_ request: Request, context: AppRequestContext, response: inout Response) {}
}
