import Hummingbird
import MockCDNCore

/// `GET /_mockcdn/deliveries`: the webhook delivery journal, every attempt oldest first with its status and
/// outcome, and the deliveries waiting for their next attempt; filters `app` (an unknown one is 404) and
/// `target`.
struct DeliveriesController {
    let events: ObjectEvents

    /// The query parameters the route reads; any other is refused by name.
    static let filters: Set<String> = ["app", "target"]

    struct Listing: ResponseEncodable {
        let attempts: [DeliveryAttempt]
        let pending: [WebhookDeliveries.Waiting]
    }

    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.get("deliveries") { request, context in
            let query = context.query(of: request)
            if let unknown = query.firstName(notIn: Self.filters) {
                throw HTTPError(
                    .badRequest,
                    message: "unknown filter \(unknown.prefix(64)); the filters are app and target"
                )
            }
            let app = try EventsController.app(in: query, of: self.events)
            let target = query.first("target")
            let deliveries = self.events.deliveries
            return Listing(
                attempts: deliveries.log.filter {
                    (app == nil || $0.app == app) && (target == nil || $0.target == target)
                },
                pending: deliveries.waiting.filter {
                    (app == nil || $0.app == app) && (target == nil || $0.target == target)
                }
            )
        }
    }
}
