import AsyncHTTPClient
import Foundation
import MockCDNCore
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

/// Webhook deliveries: each event a webhook target's filter passes becomes a delivery, POSTed off the request
/// path by this service (an upload never waits for one), tried again on the virtual clock, each attempt noted
/// in a bounded log (`GET /_mockcdn/deliveries`). The vendor-shaped webhooks (`VendorWebhooks`) are sent by
/// the same service.
///
/// What a delivery carries, how long its answer may take and when it is tried again is its `DeliveryPlan`:
/// an upload event's is `{"Records":[record]}` signed with the app's `api_secret` (`X-Signature`, the
/// lowercase hex HMAC-SHA256 of the raw body, as Stream signs its webhooks), retried by `DeliveryBackoff`.
final class WebhookDeliveries: Service, Sendable {
    /// A delivery waiting for its next attempt.
    struct Pending: Sendable {
        let id: String
        let app: String
        let target: String
        let url: URL
        let plan: DeliveryPlan
        /// The queued event it carries; nil for a vendor-shaped webhook.
        let eventID: Int?
        let eventName: String
        let key: String
        /// The attempt to make next, from 1.
        var attempt: Int
        /// The virtual clock's time it is due.
        var due: Date
        /// The virtual clock's time it was queued (the plan's deadline counts from it).
        let queued: Date
        /// The reset generation it belongs to: one from before a reset is forgotten.
        let generation: Int
    }

    /// A pending delivery as `GET /_mockcdn/deliveries` lists it.
    struct Waiting: Codable, Sendable, Equatable {
        var delivery: String
        var app: String
        var target: String
        var url: String
        var eventID: Int?
        var attempt: Int
        var dueAt: String

        enum CodingKeys: String, CodingKey {
            case delivery, app, target, url, attempt
            case eventID = "event_id"
            case dueAt = "due_at"
        }
    }

    /// The most deliveries waiting or under way; an event past it is not delivered (and its attempt logged as
    /// `dropped`, "too many pending deliveries").
    static let maximumPending = 1000
    /// The attempts the log keeps; the oldest goes first.
    static let logCapacity = 1000
    /// The longest an attempt may take, in real time, before it counts as a `timeout`.
    static let attemptTimeout = Duration.seconds(5)
    /// The most answer bytes read (and dropped) from a target; the connection is closed past them.
    static let answerLimit = 64 * 1024

    /// The HTTP client of every delivery. It does not try a refused connection again (async-http-client's
    /// shared client would, until the deadline), so a target that is not listening is `unreachable` at once,
    /// as a vendor's network error, rather than a `timeout` five seconds later. One for the process, as
    /// async-http-client's own shared client is, so no server has to close it.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// What the lock guards.
    private struct State {
        var waiting: [Pending] = []
        var running = 0
        var log: [DeliveryAttempt] = []
        var nextID = 1
        var generation = 0
    }

    let clock: MockClock
    /// The delivery fault that fires on an attempt to this URL, if any (the fault injector's rules with
    /// `match.scope: deliveries`).
    let fault: @Sendable (URL) -> DeliveryFault?
    private let state = Mutex(State())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// A delivery service on `clock`.
    ///
    /// - Parameters:
    ///   - clock: the virtual clock attempts are due on.
    ///   - fault: the delivery fault for an attempt's URL.
    init(clock: MockClock, fault: @escaping @Sendable (URL) -> DeliveryFault? = { _ in nil }) {
        self.clock = clock
        self.fault = fault
        (self.wakeups, self.wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues a delivery to `url` as `plan` says, due now.
    ///
    /// - Parameters:
    ///   - plan: the body, headers, time limit and retry rule.
    ///   - url: the webhook.
    ///   - target: what the log names as its target (a target's or a vendor webhook's id).
    ///   - app: the app id.
    ///   - eventID: the queued event it carries, if any.
    ///   - eventName: the event's name (`ObjectCreated:Put`, `message.new`, `message_sent`).
    ///   - key: the key it is about (the first attached one for a vendor webhook; empty when none).
    /// - Returns: the delivery's id (its attempt is logged `dropped` when too many are pending).
    @discardableResult
    func enqueue(
        _ plan: DeliveryPlan,
        to url: URL,
        target: String,
        app: String,
        eventID: Int?,
        eventName: String,
        key: String
    ) -> String {
        let now = self.clock.now
        let (id, refused): (String, Bool) = self.state.withLock { state in
            let id = "d\(state.nextID)"
            state.nextID += 1
            guard state.waiting.count + state.running < Self.maximumPending else {
                let attempt = DeliveryAttempt(
                    delivery: id,
                    app: app,
                    target: target,
                    url: url.absoluteString,
                    eventID: eventID,
                    eventName: eventName,
                    key: key,
                    attempt: 1,
                    at: Timestamp.text(now),
                    status: nil,
                    outcome: "dropped",
                    error: "too many pending deliveries (\(Self.maximumPending))",
                    fault: nil,
                    durationMilliseconds: 0,
                    nextAttemptAt: nil
                )
                Self.note(attempt, in: &state)
                return (id, true)
            }
            state.waiting.append(
                Pending(
                    id: id,
                    app: app,
                    target: target,
                    url: url,
                    plan: plan,
                    eventID: eventID,
                    eventName: eventName,
                    key: key,
                    attempt: 1,
                    due: now,
                    queued: now,
                    generation: state.generation
                )
            )
            return (id, false)
        }
        if !refused { self.wake.yield() }
        return id
    }

    /// Runs the attempts that are due: at once for new deliveries, when the clock is set or advanced
    /// (`nudge`), and each second of real time for retries whose time comes with it.
    func run() async throws {
        try await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { [wake = self.wake] in
                    while (try? await Task.sleep(for: .seconds(1))) != nil { wake.yield() }
                }
                for await _ in self.wakeups {
                    for delivery in self.takeDue() { group.addTask { await self.attempt(delivery) } }
                }
                group.cancelAll()
            }
        }
    }

    /// Looks for due attempts now (the clock moved).
    func nudge() { self.wake.yield() }

    /// The attempts made, oldest first.
    var log: [DeliveryAttempt] { self.state.withLock { $0.log } }

    /// The deliveries waiting for an attempt, soonest first.
    var waiting: [Waiting] {
        self.state.withLock { $0.waiting }.sorted { $0.due < $1.due }.map {
            Waiting(
                delivery: $0.id,
                app: $0.app,
                target: $0.target,
                url: $0.url.absoluteString,
                eventID: $0.eventID,
                attempt: $0.attempt,
                dueAt: Timestamp.text($0.due)
            )
        }
    }

    /// Forgets every pending delivery and the log (`/_mockcdn/reset`); an attempt under way finishes unnoted.
    func clear() {
        self.state.withLock { state in
            state.waiting = []
            state.log = []
            state.generation += 1
        }
    }

    /// Takes the deliveries that are due out of the waiting list, counting them as running.
    private func takeDue() -> [Pending] {
        let now = self.clock.now
        return self.state.withLock { state in
            let due = state.waiting.filter { $0.due <= now }
            state.waiting.removeAll { $0.due <= now }
            state.running += due.count
            return due
        }
    }

    /// Makes one attempt, notes it, and puts the delivery back with its next due time when it failed.
    private func attempt(_ delivery: Pending) async {
        let started = ContinuousClock.now
        let at = self.clock.now
        let fault = self.fault(delivery.url)
        var status: Int?
        var outcome: String
        var reason: String?
        let limit = delivery.plan.timeout.components
        let limitMilliseconds = Int(limit.seconds * 1000 + limit.attoseconds / 1_000_000_000_000_000)
        // A delay at least the time limit is not waited out: the answer would come too late whatever it is, so
        // the attempt is sent (the target sees it) and counts as a timeout at once.
        let late = (fault?.delayMilliseconds ?? 0) >= limitMilliseconds
        if let delay = fault?.delayMilliseconds, delay > 0, !late { try? await Task.sleep(for: .milliseconds(delay)) }
        if fault?.drop == true {
            outcome = "dropped"
            reason = "dropped by fault \(fault?.rule ?? "")"
        } else {
            do {
                // A delay counts toward the time limit: the answer has what is left of it.
                let left = delivery.plan.timeout - .milliseconds(late ? 0 : fault?.delayMilliseconds ?? 0)
                let answered = try await self.send(delivery, within: left)
                if late { throw DeliveryTimeout(limit: delivery.plan.timeout) }
                status = fault?.status ?? answered
                outcome = (200..<300).contains(status ?? 0) ? "delivered" : "failed"
            } catch let failure as DeliveryTimeout {
                outcome = "timeout"
                reason = failure.description
            } catch {
                outcome = "unreachable"
                reason = String(String(describing: error).prefix(200))
            }
        }
        let delay = outcome == "delivered" ? nil : delivery.plan.retry(delivery.attempt, outcome, status)
        var next = delay.map { self.clock.now.addingTimeInterval(TimeInterval($0)) }
        if let due = next, let deadline = delivery.plan.deadline,
            due > delivery.queued.addingTimeInterval(TimeInterval(deadline))
        {
            next = nil
        }
        let took = (ContinuousClock.now - started).components
        let milliseconds = Int(took.seconds * 1000 + took.attoseconds / 1_000_000_000_000_000)
        let noted = DeliveryAttempt(
            delivery: delivery.id,
            app: delivery.app,
            target: delivery.target,
            url: delivery.url.absoluteString,
            eventID: delivery.eventID,
            eventName: delivery.eventName,
            key: delivery.key,
            attempt: delivery.attempt,
            at: Timestamp.text(at),
            status: status,
            outcome: outcome,
            error: reason,
            fault: fault?.rule,
            durationMilliseconds: milliseconds,
            nextAttemptAt: next.map(Timestamp.text)
        )
        self.state.withLock { state in
            state.running -= 1
            guard delivery.generation == state.generation else { return }
            Self.note(noted, in: &state)
            if let next {
                var again = delivery
                again.attempt += 1
                again.due = next
                state.waiting.append(again)
            }
        }
    }

    /// POSTs the delivery with its plan's headers; its status, or `DeliveryTimeout` when no answer came within
    /// `limit`. The HTTP client's own deadline is a second later, so that the limit, not the client, decides.
    ///
    /// The answer's head decides: any 2xx is a delivery whatever its body. The body is read (and dropped) up to
    /// `answerLimit` bytes while the time limit lasts, then the connection is closed, so a target that answers
    /// 200 with a large or endless body is neither failed nor tried again (its duplicates were the bug).
    private func send(_ delivery: Pending, within limit: Duration) async throws -> Int {
        var request = HTTPClientRequest(url: delivery.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "User-Agent", value: "MockCDN/\(mockCDNVersion)")
        for (name, value) in delivery.plan.headers(delivery.id, delivery.attempt) {
            request.headers.add(name: name, value: value)
        }
        request.body = .bytes(ByteBuffer(bytes: delivery.plan.body))
        let signed = request
        let parts = limit.components
        let clientDeadline = TimeAmount.milliseconds(
            parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000 + 1000
        )
        let deadline = ContinuousClock.now + limit
        let response = try await withThrowingTaskGroup(of: HTTPClientResponse?.self) { group in
            group.addTask { try await Self.client.execute(signed, timeout: clientDeadline) }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard let response = try await group.next()! else { throw DeliveryTimeout(limit: delivery.plan.timeout) }
            return response
        }
        // The head is in, so the status stands; the body has what is left of the limit, and a body still
        // arriving then, or one that breaks, does not undo it.
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = try? await Self.drain(response.body, upTo: Self.answerLimit) }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
        }
        return Int(response.status.code)
    }

    /// Reads an answer's body until it ends or `limit` bytes have come, whichever is first. Stopping early
    /// drops the body, and async-http-client then closes the connection rather than reuse it half read.
    ///
    /// - Parameters:
    ///   - body: the answer's body.
    ///   - limit: the most bytes read.
    /// - Returns: the bytes read.
    /// - Throws: what reading the body throws (a connection that broke mid-body).
    @discardableResult
    static func drain(_ body: HTTPClientResponse.Body, upTo limit: Int) async throws -> Int {
        var read = 0
        for try await chunk in body {
            read += chunk.readableBytes
            if read >= limit { break }
        }
        return read
    }

    /// Adds an attempt to the log, dropping the oldest past `logCapacity`.
    private static func note(_ attempt: DeliveryAttempt, in state: inout State) {
        state.log.append(attempt)
        if state.log.count > Self.logCapacity { state.log.removeFirst(state.log.count - Self.logCapacity) }
    }
}

/// An attempt that took longer than its plan's time limit; noted on the attempt, never answered.
struct DeliveryTimeout: CategorizedError, CustomStringConvertible {
    /// The time limit it passed.
    var limit: Duration = WebhookDeliveries.attemptTimeout

    var category: ErrorCategory { .unavailable }
    var publicMessage: String { self.description }
    var description: String { "no answer within \(self.limit)" }
}
