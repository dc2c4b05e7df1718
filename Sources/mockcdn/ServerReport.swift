import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The coverage report of a running MockCDN (`GET /_mockcdn/report`), read over plain HTTP/1.1 with SwiftNIO.
enum ServerReport {
    /// How long the whole exchange may take.
    static let timeLimit: TimeAmount = .seconds(30)
    /// The most bytes of report read (a report of every row in any format is a few tens of KiB).
    static let maximumBytes = 4 * 1024 * 1024

    /// Why the report could not be read, in words for the command line.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A report and the percentage of rows it covers (`X-MockCDN-Coverage`).
    struct Answer: Sendable {
        let text: String
        let percent: Double
    }

    /// Fetches the report.
    ///
    /// - Parameters:
    ///   - server: `http://HOST:PORT`.
    ///   - format: `json`, `markdown` or `junit`.
    ///   - since: an entry id to read the journal from, or nil.
    ///   - adminToken: sent as a bearer token, for a server off loopback.
    /// - Returns: the report's text and percentage.
    /// - Throws: `Failure` naming what went wrong.
    static func fetch(from server: String, format: String, since: String?, adminToken: String?) async throws -> Answer {
        guard let url = URLComponents(string: server), url.scheme?.lowercased() == "http", let host = url.host,
            !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil
        else { throw Failure(description: "--url must be http://HOST:PORT (MockCDN serves plain HTTP)") }
        let port = url.port ?? 80
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let sinceItem = since.map {
            "&since=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        }
        let target = "/_mockcdn/report?format=\(format)" + (sinceItem ?? "")
        return try await withThrowingTaskGroup(of: Answer.self) { group in
            group.addTask {
                do {
                    return try await self.exchange(
                        host: bare,
                        port: port,
                        authority: "\(host):\(port)",
                        target: target,
                        adminToken
                    )
                } catch let failure as Failure {
                    throw Failure(description: "--url \(server): \(failure)")
                } catch {
                    throw Failure(description: "--url \(server): \(error)")
                }
            }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(self.timeLimit.nanoseconds))
                throw Failure(description: "--url \(server): no answer within 30 s")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private static func exchange(
        host: String,
        port: Int,
        authority: String,
        target: String,
        _ adminToken: String?
    ) async throws -> Answer {
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
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target)
            head.headers.add(name: "Host", value: authority)
            head.headers.add(name: "Connection", value: "close")
            if let adminToken, !adminToken.isEmpty {
                head.headers.add(name: "Authorization", value: "Bearer " + adminToken)
            }
            try await outbound.write(.head(head))
            try await outbound.write(.end(nil))
            var status: UInt = 0
            var percent: Double?
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let response):
                    status = response.status.code
                    percent = response.headers.first(name: "X-MockCDN-Coverage").flatMap(Double.init)
                case .body(var chunk):
                    guard body.readableBytes + chunk.readableBytes <= self.maximumBytes else {
                        throw Failure(description: "GET /_mockcdn/report answered more than 4 MiB")
                    }
                    body.writeBuffer(&chunk)
                case .end: break
                }
            }
            let text = String(decoding: body.readableBytesView, as: UTF8.self)
            guard status == 200, let percent else {
                throw Failure(description: "GET /_mockcdn/report answered \(status): \(text.prefix(300))")
            }
            return Answer(text: text, percent: percent)
        }
    }
}
