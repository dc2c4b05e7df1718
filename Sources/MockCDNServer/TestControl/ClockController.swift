import Foundation
import Hummingbird
import MockCDNCore

/// `GET|PUT /_mockcdn/clock`, `POST /_mockcdn/clock/advance`: the clock every expiry reads.
struct ClockController {
    let clock: MockClock
    /// Called after the clock is set or advanced: webhook retries that came due run at once.
    var onChange: @Sendable () -> Void = {}

    struct ClockState: ResponseEncodable {
        let now: Int64
    }

    /// `now` as Unix seconds, or as an ISO 8601 date and time with its offset (`2026-11-23T10:00:00Z`).
    struct SetClock: Decodable {
        let now: Int64

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let seconds = try? container.decode(Int64.self, forKey: .now) {
                self.now = seconds
                return
            }
            let text = try container.decode(String.self, forKey: .now)
            guard let date = SetClock.iso8601(text) else {
                throw JSONBodyError(
                    message: "now must be Unix seconds or an ISO 8601 date and time, such as 2026-11-23T10:00:00Z"
                )
            }
            self.now = Int64(date.timeIntervalSince1970.rounded(.down))
        }

        private static func iso8601(_ text: String) -> Date? {
            let formatter = ISO8601DateFormatter()
            if let date = formatter.date(from: text) { return date }
            formatter.formatOptions.insert(.withFractionalSeconds)
            return formatter.date(from: text)
        }

        enum CodingKeys: String, CodingKey {
            case now
        }
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
        group.put("clock") { request, _ in
            let body = try await request.decodeJSONBody(SetClock.self, shape: .object(["now": .value]))
            guard Self.range.contains(body.now) else { throw Self.outOfRange }
            self.clock.set(Date(timeIntervalSince1970: TimeInterval(body.now)))
            self.onChange()
            return ClockState(now: self.clock.unixSeconds)
        }
        group.post("clock/advance") { request, _ in
            let body = try await request.decodeJSONBody(Advance.self, shape: .object(["seconds": .value]))
            let (target, overflow) = self.clock.unixSeconds.addingReportingOverflow(body.seconds)
            guard !overflow, Self.range.contains(target) else { throw Self.outOfRange }
            self.clock.advance(by: TimeInterval(body.seconds))
            self.onChange()
            return ClockState(now: self.clock.unixSeconds)
        }
    }
}
