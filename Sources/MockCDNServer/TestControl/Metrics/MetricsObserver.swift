import Hummingbird

/// Counts every request but the control routes' (and the console's own reads) for `/metrics`, by the route
/// it was matched to, its method and its status (a fault's included; an error no envelope rendered counts as
/// 500); the fast path's answers are also counted as such.
struct MetricsObserver: RequestObserver {
    let metrics: ServerMetrics

    func observe(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        guard !ConsoleMark.isUnobserved(request, context: context) else {
            return try await next(request, context)
        }
        let route = context.notes.route ?? "unmatched"
        do {
            let response = try await next(request, context)
            self.metrics.request(route: route, method: request.method.rawValue, status: Int(response.status.code))
            return response
        } catch {
            self.metrics.request(route: route, method: request.method.rawValue, status: 500)
            throw error
        }
    }

    func observeFast(_ request: Request, context: AppRequestContext, response: inout Response) {
        guard !ConsoleMark.isUnobserved(request, context: context) else { return }
        let route = context.notes.route ?? "unmatched"
        self.metrics.request(route: route, method: request.method.rawValue, status: Int(response.status.code))
        self.metrics.fastRead()
    }
}
