import Hummingbird

extension IdleMemoryTrim {
    /// Tells the trim of each request's arrival; the outermost middleware, so that every request counts.
    struct Middleware: RouterMiddleware {
        typealias Context = AppRequestContext

        let trim: IdleMemoryTrim

        func handle(
            _ request: Request,
            context: Context,
            next: (Request, Context) async throws -> Response
        ) async throws -> Response {
            self.trim.requestArrived()
            return try await next(request, context)
        }
    }
}
