import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The clock of a running MockCDN (`GET /_mockcdn/clock`), read over plain HTTP/1.1 with SwiftNIO.
enum ServerClock {
    /// How long the whole exchange may take.
    static let timeLimit: TimeAmount = .seconds(10)

    /// Why the clock could not be read, in words for the command line.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The server's `now`, Unix seconds.
    ///
    /// - Parameters:
    ///   - server: `http://HOST:PORT` (MockCDN serves plain HTTP).
    ///   - adminToken: sent as a bearer token, for a server off loopback.
    /// - Throws: `Failure` naming what went wrong.
    static func now(of server: String, adminToken: String?) async throws -> Int64 {
        guard let url = URLComponents(string: server), url.scheme?.lowercased() == "http", let host = url.host,
            !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil
        else { throw Failure(description: "--server must be http://HOST:PORT (MockCDN serves plain HTTP)") }
        let port = url.port ?? 80
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return try await withThrowingTaskGroup(of: Int64.self) { group in
            group.addTask {
                do {
                    return try await self.exchange(host: bare, port: port, authority: "\(host):\(port)", adminToken)
                } catch let failure as Failure {
                    throw Failure(description: "--server \(server): \(failure)")
                } catch {
                    throw Failure(description: "--server \(server): \(error)")
                }
            }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(self.timeLimit.nanoseconds))
                throw Failure(description: "--server \(server): no answer within 10 s")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private static func exchange(
        host: String,
        port: Int,
        authority: String,
        _ adminToken: String?
    ) async throws -> Int64 {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(self.timeLimit)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel
                    )
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/_mockcdn/clock")
            head.headers.add(name: "Host", value: authority)
            head.headers.add(name: "Connection", value: "close")
            if let adminToken, !adminToken.isEmpty {
                head.headers.add(name: "Authorization", value: "Bearer " + adminToken)
            }
            try await outbound.write(.head(head))
            try await outbound.write(.end(nil))
            var status: UInt = 0
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let response): status = response.status.code
                case .body(var chunk):
                    guard body.readableBytes + chunk.readableBytes <= 64 * 1024 else {
                        throw Failure(description: "GET /_mockcdn/clock answered more than 64 KiB")
                    }
                    body.writeBuffer(&chunk)
                case .end: break
                }
            }
            struct Clock: Decodable { let now: Int64 }
            guard status == 200, let clock = try? JSONDecoder().decode(Clock.self, from: Data(body.readableBytesView))
            else { throw Failure(description: "GET /_mockcdn/clock answered \(status)") }
            return clock.now
        }
    }
}
