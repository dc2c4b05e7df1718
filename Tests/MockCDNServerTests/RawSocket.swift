import Foundation
import MockCDNPoolWatchdog

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Requests written to a plain socket byte for byte (any head, any number of `Host` headers, any request
/// target), and their answers read back on one connection: what a URL session would refuse to send.
enum RawSocket {
    /// How long a read waits for the server's next bytes: thousands of times what an answer takes, and short of
    /// the idle timeout (35 s), so a connection the server stopped reading fails the test as "no answer".
    static let patience: TimeInterval = 30

    /// The answers to `messages` on one connection, read on a thread of their own (a blocking read on one of
    /// Swift's cooperative threads, of which a small machine has two, could starve the server it waits for).
    ///
    /// - Parameters:
    ///   - port: the server's port on 127.0.0.1.
    ///   - messages: whole requests (head and body), as sent.
    ///   - pipelined: all of them in one write, rather than each after the answer to the one before.
    ///   - heads: indexes of the messages that are `HEAD` requests (their answers have no body).
    /// - Returns: one answer per message, in order.
    /// - Throws: `RawHTTP.Failure` when the connection ends or stays silent for `patience` seconds first.
    static func exchange(
        port: Int,
        _ messages: [String],
        pipelined: Bool = false,
        heads: Set<Int> = []
    ) async throws -> [RawReply] {
        try await outsidePool { try Self.blockingExchange(port: port, messages, pipelined: pipelined, heads: heads) }
    }

    private static func blockingExchange(
        port: Int,
        _ messages: [String],
        pipelined: Bool,
        heads: Set<Int>
    ) throws -> [RawReply] {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RawHTTP.Failure(description: "socket") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: Int(Self.patience), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw RawHTTP.Failure(description: "connect") }
        func send(_ text: String) throws {
            let data = Data(text.utf8)
            let sent = data.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, 0) }
            guard sent == data.count else { throw RawHTTP.Failure(description: "send") }
        }
        var buffer = Data()
        func receive(head: Bool, index: Int) throws -> RawReply {
            while true {
                if let reply = try RawHTTP.parse(&buffer, head: head) { return reply }
                var chunk = [UInt8](repeating: 0, count: 65536)
                let count = recv(socket, &chunk, chunk.count, 0)
                guard count > 0 else {
                    throw RawHTTP.Failure(
                        description: count == 0
                            ? "the server closed the connection before answer \(index + 1)"
                            : "no answer \(index + 1) within \(Int(Self.patience)) s (errno \(errno))"
                    )
                }
                buffer.append(contentsOf: chunk[..<count])
            }
        }
        var replies: [RawReply] = []
        if pipelined { try send(messages.joined()) }
        for (index, message) in messages.enumerated() {
            if !pipelined { try send(message) }
            replies.append(try receive(head: heads.contains(index), index: index))
        }
        return replies
    }
}
