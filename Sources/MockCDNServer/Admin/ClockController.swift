import Foundation
import Hummingbird
import MockCDNCore

/// `GET|PUT /_mockcdn/clock`, `POST /_mockcdn/clock/advance`: the clock every expiry reads.
struct ClockController {
    let clock: MockClock

    struct ClockState: ResponseEncodable {
        let now: Int64
    }

    struct SetClock: Decodable {
        let now: Int64
    }

    struct Advance: Decodable {
        let seconds: Int64
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("clock") { _, _ in ClockState(now: self.clock.unixSeconds) }
        group.put("clock") { request, context in
            let body = try await request.decode(as: SetClock.self, context: context)
            guard body.now >= 0 else { throw HTTPError(.badRequest, message: "now must be a non-negative Unix time") }
            self.clock.set(Date(timeIntervalSince1970: TimeInterval(body.now)))
            return ClockState(now: self.clock.unixSeconds)
        }
        group.post("clock/advance") { request, context in
            let body = try await request.decode(as: Advance.self, context: context)
            guard abs(body.seconds) <= 100 * 365 * 24 * 3600 else {
                throw HTTPError(.badRequest, message: "seconds must be within 100 years")
            }
            self.clock.advance(by: TimeInterval(body.seconds))
            return ClockState(now: self.clock.unixSeconds)
        }
    }
}
