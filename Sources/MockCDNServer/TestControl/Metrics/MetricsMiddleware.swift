import Hummingbird

/// Counts every request but the control routes' for `/metrics`, by the route the router matched, its
/// method and its status (a fault's included; an error no envelope rendered counts as 500).
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    let metrics: ServerMetrics

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        guard !ConsoleMark.isUnobserved(route: context.endpointPath, fields: request.headers) else {
            return try await next(request, context)
        }
        let route = context.endpointPath ?? "unmatched"
        do {
            let response = try await next(request, context)
            self.metrics.request(route: route, method: request.method.rawValue, status: Int(response.status.code))
            return response
        } catch {
            self.metrics.request(route: route, method: request.method.rawValue, status: 500)
            throw error
        }
    }
}
