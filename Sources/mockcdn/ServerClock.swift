import Foundation
import NIOCore

/// The clock of a running MockCDN (`GET /_mockcdn/clock`), read with `ControlGet`.
enum ServerClock {
    /// How long the whole exchange may take.
    static let timeLimit: TimeAmount = .seconds(10)

    /// Why the clock could not be read, in words for the command line.
    typealias Failure = ControlGet.Failure

    /// The server's `now`, Unix seconds.
    ///
    /// - Parameters:
    ///   - server: `http://HOST:PORT` (MockCDN serves plain HTTP).
    ///   - adminToken: sent as a bearer token, for a server off loopback.
    /// - Throws: `Failure` naming what went wrong.
    static func now(of server: String, adminToken: String?) async throws -> Int64 {
        let answer = try await ControlGet.fetch(
            "/_mockcdn/clock",
            from: server,
            option: "--server",
            adminToken: adminToken,
            timeLimit: self.timeLimit,
            maximumBytes: 64 * 1024
        )
        struct Clock: Decodable { let now: Int64 }
        guard answer.status == 200,
            let clock = try? JSONDecoder().decode(Clock.self, from: Data(answer.body.readableBytesView))
        else { throw Failure(description: "--server \(server): GET /_mockcdn/clock answered \(answer.status)") }
        return clock.now
    }
}
