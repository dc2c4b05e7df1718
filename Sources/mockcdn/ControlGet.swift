import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One `GET` of a control route on a running MockCDN, over plain HTTP/1.1 with SwiftNIO: what `--server`
/// (the clock) and `mockcdn report --url` read.
enum ControlGet {
    /// Why the route could not be read, in words for the command line.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A route's answer.
    struct Answer: Sendable {
        let status: UInt
        let headers: HTTPHeaders
        let body: ByteBuffer
    }

    /// Reads a control route.
    ///
    /// - Parameters:
    ///   - target: the path and query (`/_mockcdn/clock`).
    ///   - server: `http://HOST:PORT`.
    ///   - option: the option that named the server (`--server`, `--url`), for messages.
    ///   - adminToken: sent as a bearer token, for a server off loopback.
    ///   - timeLimit: how long the whole exchange may take.
    ///   - maximumBytes: the most body bytes read.
    /// - Returns: the answer, whatever its status.
    /// - Throws: `Failure` naming what went wrong.
    static func fetch(
        _ target: String,
        from server: String,
        option: String,
        adminToken: String?,
        timeLimit: TimeAmount,
        maximumBytes: Int
    ) async throws -> Answer {
        guard let url = URLComponents(string: server), url.scheme?.lowercased() == "http", let host = url.host,
            !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil
        else { throw Failure(description: "\(option) must be http://HOST:PORT (MockCDN serves plain HTTP)") }
        let port = url.port ?? 80
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return try await withThrowingTaskGroup(of: Answer.self) { group in
            group.addTask {
                do {
                    return try await self.exchange(
                        target,
                        host: bare,
                        port: port,
                        authority: "\(host):\(port)",
                        adminToken: adminToken,
                        timeLimit: timeLimit,
                        maximumBytes: maximumBytes
                    )
                } catch let failure as Failure {
                    throw Failure(description: "\(option) \(server): \(failure)")
                } catch {
                    throw Failure(description: "\(option) \(server): \(error)")
                }
            }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(timeLimit.nanoseconds))
                throw Failure(
                    description: "\(option) \(server): no answer within \(timeLimit.nanoseconds / 1_000_000_000) s"
                )
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private static func exchange(
        _ target: String,
        host: String,
        port: Int,
        authority: String,
        adminToken: String?,
        timeLimit: TimeAmount,
        maximumBytes: Int
    ) async throws -> Answer {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(timeLimit)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel
                    )
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target)
            head.headers.add(name: "Host", value: authority)
            head.headers.add(name: "Connection", value: "close")
            if let adminToken, !adminToken.isEmpty {
                head.headers.add(name: "Authorization", value: "Bearer " + adminToken)
            }
            try await outbound.write(.head(head))
            try await outbound.write(.end(nil))
            var status: UInt = 0
            var headers = HTTPHeaders()
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let response):
                    status = response.status.code
                    headers = response.headers
                case .body(var chunk):
                    guard body.readableBytes + chunk.readableBytes <= maximumBytes else {
                        let path = target.prefix { $0 != "?" }
                        throw Failure(description: "GET \(path) answered more than \(maximumBytes / 1024) KiB")
                    }
                    body.writeBuffer(&chunk)
                case .end: break
                }
            }
            return Answer(status: status, headers: headers, body: body)
        }
    }
}
