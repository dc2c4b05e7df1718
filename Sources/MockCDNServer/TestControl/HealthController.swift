import Hummingbird

/// `GET /_mockcdn/health`: 200 once the server listens and its fixtures are loaded (the ready signal).
struct HealthController {
    struct Status: ResponseEncodable {
        let status: String
    }

    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.get("health") { _, _ in Status(status: "ok") }
    }
}
