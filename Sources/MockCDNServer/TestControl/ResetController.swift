import Hummingbird

/// `POST /_mockcdn/reset`: objects (fixtures reloaded), variants, journal, faults, clock, channel
/// membership and upload settings back to the startup state.
struct ResetController {
    let services: ServerServices

    struct Done: ResponseEncodable {
        let status: String
    }

    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.post("reset") { _, _ in
            try await self.services.reset()
            return Done(status: "reset")
        }
    }
}
