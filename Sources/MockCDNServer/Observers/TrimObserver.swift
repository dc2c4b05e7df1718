import Hummingbird

/// Tells the idle trim of each request's arrival, so that a quiet server returns its free memory, and only a
/// quiet one (`IdleMemoryTrim`).
struct TrimObserver: RequestObserver {
    let trim: IdleMemoryTrim

    func observe(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        self.trim.requestArrived()
        return try await next(request, context)
    }

    func observeFast(_ request: Request, context: AppRequestContext, response: inout Response) {
        self.trim.requestArrived()
    }
}
