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

    /// 1970 to the end of 9999: every expiry computed from the clock (now + a lifetime) stays far from
    /// overflowing, and `X-Amz-Date` keeps its four-digit year.
    static let range: ClosedRange<Int64> = 0...253_402_300_799
    static let outOfRange = HTTPError(.badRequest, message: "the clock must stay within 1970-01-01 and 9999-12-31")

    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.get("clock") { _, _ in ClockState(now: self.clock.unixSeconds) }
        group.put("clock") { request, context in
            let body = try await request.decode(as: SetClock.self, context: context)
            guard Self.range.contains(body.now) else { throw Self.outOfRange }
            self.clock.set(Date(timeIntervalSince1970: TimeInterval(body.now)))
            return ClockState(now: self.clock.unixSeconds)
        }
        group.post("clock/advance") { request, context in
            let body = try await request.decode(as: Advance.self, context: context)
            let (target, overflow) = self.clock.unixSeconds.addingReportingOverflow(body.seconds)
            guard !overflow, Self.range.contains(target) else { throw Self.outOfRange }
            self.clock.advance(by: TimeInterval(body.seconds))
            return ClockState(now: self.clock.unixSeconds)
        }
    }
}
