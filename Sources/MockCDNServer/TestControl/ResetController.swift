import Hummingbird

/// `POST /_mockcdn/reset`: objects (fixtures reloaded), variants, journal, faults, clock, channel
/// membership and upload settings back to the startup state.
struct ResetController {
    /// Puts every service back to its startup state (`ServerServices.reset`).
    let reset: @Sendable () async throws -> Void

    struct Done: ResponseEncodable {
        let status: String
    }

    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.post("reset") { _, _ in
            try await self.reset()
            return Done(status: "reset")
        }
    }
}
