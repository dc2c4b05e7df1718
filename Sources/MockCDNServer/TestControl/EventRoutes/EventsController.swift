import Foundation
import Hummingbird
import MockCDNCore

/// `GET /_mockcdn/events`: the built-in queue, oldest first, with a long poll (`after`, `wait`) and the
/// filters `app` and `target` (a target's id or ARN: the events its filter passed, each record's
/// `configurationId` then that target's id).
struct EventsController {
    let events: ObjectEvents

    /// The longest `wait`, in seconds.
    static let maximumWait = 60.0
    /// The query parameters the route reads; any other is refused by name.
    static let parameters: Set<String> = ["after", "wait", "app", "target"]

    /// The answer. Written with a plain encoder, not the control routes' snake_case one: records keep AWS's
    /// member names (`eventName`, `s3SchemaVersion`).
    struct Listing: Encodable {
        let events: [QueuedEvent]
        /// The newest event's id (whether or not it passed the filters): the `after` of the next poll.
        let lastID: Int
        /// The long polls waiting now (this one not counted): a test can see that its poll waits.
        let waiting: Int

        enum CodingKeys: String, CodingKey {
            case events, waiting
            case lastID = "last_id"
        }
    }

    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.get("events") { request, context in
            let query = context.query(of: request)
            if let unknown = query.firstName(notIn: Self.parameters) {
                throw HTTPError(
                    .badRequest,
                    message: "unknown parameter \(unknown.prefix(64)); the parameters are after, wait, app and target"
                )
            }
            // A body would be read by nothing, and the long poll needs the request body as it arrived to see
            // its client leave (a body a middleware wraps cannot be watched).
            if request.headers[.transferEncoding] != nil
                || (request.headers[.contentLength].flatMap { Int($0) } ?? 0) > 0
            {
                throw HTTPError(.badRequest, message: "GET /_mockcdn/events takes no body")
            }
            var after = 0
            if let text = query.first("after") {
                guard let value = Int(text), value >= 0 else {
                    throw HTTPError(.badRequest, message: "after must be an event id (a whole number, 0 or more)")
                }
                after = value
            }
            var wait = 0.0
            if let text = query.first("wait") {
                guard let value = Double(text), value.isFinite, (0...Self.maximumWait).contains(value) else {
                    throw HTTPError(.badRequest, message: "wait must be 0...60 seconds")
                }
                wait = value
            }
            let app = try Self.app(in: query, of: self.events)
            let target = query.first("target")
            let since = after
            let include: @Sendable (QueuedEvent) -> Bool = { event in
                guard event.id > since else { return false }
                if let app, event.app != app { return false }
                if let target, !event.targets.contains(target), !event.arns.contains(target) { return false }
                return true
            }
            var found = await self.events.queue.events(waiting: .zero, where: include)
            var closes = false
            if found.isEmpty, wait > 0 {
                // Hummingbird tells a route its client left through the request body as it arrived, reading the
                // connection past this request: the poll stops waiting (and counting) the moment the client
                // closes, and the connection cannot carry another request, so the answer says so.
                found = try await request.body.consumeWithCancellationOnInboundClose { _ in
                    await self.events.queue.events(waiting: .milliseconds(Int64(wait * 1000)), where: include)
                }
                closes = true
            }
            let shown = found.map { event in
                guard let target else { return event }
                let configuration = self.events.configuration(of: event.app).all.first {
                    $0.target.id == target || $0.target.arn == target
                }
                var record = event.record
                record.s3.configurationId = configuration?.target.id ?? target
                return QueuedEvent(
                    id: event.id,
                    app: event.app,
                    targets: event.targets,
                    arns: event.arns,
                    record: record
                )
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let body = try encoder.encode(
                Listing(events: shown, lastID: self.events.queue.lastID, waiting: self.events.queue.waiting)
            )
            var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
            if closes { headers[.connection] = "close" }
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
    }

    /// The `app` filter of an events or deliveries query: an app no configuration names is 404, as a typo
    /// would otherwise read as an empty journal.
    ///
    /// - Parameters:
    ///   - query: the request's query.
    ///   - events: the event service, which knows the apps.
    /// - Returns: the app, nil for no filter.
    /// - Throws: 404 `no app NAME`.
    static func app(in query: QueryItems, of events: ObjectEvents) throws -> String? {
        guard let app = query.first("app") else { return nil }
        guard events.apps.app(id: app) != nil else { throw HTTPError(.notFound, message: "no app \(app.prefix(64))") }
        return app
    }
}
