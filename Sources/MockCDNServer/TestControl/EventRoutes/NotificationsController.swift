import Hummingbird
import MockCDNCore

/// `GET|PUT /_mockcdn/apps/{app}/notifications`: an app's notification targets (`NotificationConfiguration`),
/// replaced whole by a PUT until the next reset, which brings back the config file's.
struct NotificationsController {
    let events: ObjectEvents

    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.get("apps/:app/notifications") { _, context in
            let app = try self.app(context)
            return self.events.configuration(of: app)
        }
        group.put("apps/:app/notifications") { request, context in
            let app = try self.app(context)
            let body = try await request.decodeJSONBody(
                NotificationConfiguration.self,
                shape: NotificationConfiguration.shape
            )
            // A bad target is invalid input: 400 with its message, in the control routes' envelope.
            return try self.events.setConfiguration(body, of: app)
        }
    }

    /// The path's app id; 404 when there is no such app.
    private func app(_ context: AppRequestContext) throws -> String {
        let app = try context.parameters.require("app")
        guard self.events.apps.app(id: app) != nil else {
            throw HTTPError(.notFound, message: "no app \(app.prefix(64))")
        }
        return app
    }
}
