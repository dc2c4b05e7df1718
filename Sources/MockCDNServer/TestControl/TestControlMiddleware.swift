import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore
import Synchronization

/// Journal, faults and metrics for every request but the test-control routes themselves: records the
/// request (redacted) with its credential source, status, bytes and duration; applies the first fault
/// rule that fires (delay, status, throttle, reset, truncation); counts it for `/metrics`.
struct TestControlMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    let journal: Journal
    let faults: FaultInjector
    let metrics: ServerMetrics
    /// Read when a request arrives, for its journal entry.
    let clock: MockClock

    /// Routes that only tests and operators call: never journaled, never faulted. Decided by the route the
    /// router matched, so `//_mockcdn/clock` (which the router also matches) is a control route too.
    static func isControl(route: String?) -> Bool {
        guard let route else { return false }
        return route.hasPrefix("/_mockcdn/") || route == "/metrics"
    }

    /// Statuses that carry no body (RFC 9110): an injected body would corrupt a kept-alive connection.
    static func allowsBody(_ status: Int, method: HTTPRequest.Method) -> Bool {
        method != .head && status != 204 && status != 304 && status >= 200
    }

    /// Routes whose request bodies count as upload bytes.
    static func isUpload(route: String?, method: HTTPRequest.Method) -> Bool {
        guard method == .post, let route else { return false }
        return route.hasSuffix("/image") || route.hasSuffix("/file") || route.hasSuffix("/media")
    }

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        guard !Self.isControl(route: context.endpointPath) else { return try await next(request, context) }
        let started = ContinuousClock.now
        let query = QueryItems(request.uri.query)
        var context = context
        context.query = query
        let rule = self.faults.fire(
            method: request.method.rawValue,
            path: path,
            queryNames: Set(query.decoded.map(\.name))
        )
        let action = rule?.action ?? FaultInjector.Action()
        let entry = self.journal.record(
            method: request.method.rawValue,
            path: path,
            query: query,
            clock: self.clock.unixSeconds,
            state: .init(
                credential: .none,
                status: 0,
                bytesIn: 0,
                bytesOut: 0,
                durationMilliseconds: 0,
                fault: rule?.id
            )
        )
        let throttle = action.throttleBytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
        let received = ByteCount()
        var request = request
        // Only bodies that carry something are wrapped: a GET keeps its own, so a route can still tell when
        // its client goes away (`consumeWithCancellationOnInboundClose` needs the body as it arrived).
        if request.method != .get, request.method != .head {
            request.body = RequestBody(
                asyncSequence: CountedBody(base: request.body, count: received, throttle: throttle)
            )
        }
        if let delay = action.delayMilliseconds, delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }

        var response: Response
        var credential = CredentialSource.none
        var reason: String? = nil
        if let status = action.status {
            response =
                Self.allowsBody(status, method: request.method)
                ? Response(
                    status: HTTPResponse.Status(code: status),
                    headers: [.contentType: "text/plain; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: action.body ?? ""))
                )
                : Response(status: HTTPResponse.Status(code: status))
        } else {
            do {
                response = try await next(request, context)
                credential = CredentialNote.take(from: &response)
            } catch let noted as NotedError where noted.error is any HTTPResponseError {
                credential = noted.credential
                reason = (noted.error as? any ExplainedRefusal)?.explanation
                response = try (noted.error as! any HTTPResponseError).response(from: request, context: context)
            } catch let error as any HTTPResponseError {
                reason = (error as? any ExplainedRefusal)?.explanation
                response = try error.response(from: request, context: context)
            } catch {
                let noted = error as? NotedError
                let error = noted?.error ?? error
                self.answered(
                    entry,
                    request: request,
                    context: context,
                    status: 500,
                    credential: noted?.credential ?? .none
                )
                Self.complete(
                    entry,
                    received: received,
                    sent: ByteCount(),
                    started: started,
                    metrics: self.metrics,
                    upload: false
                )
                throw error
            }
        }
        self.answered(
            entry,
            request: request,
            context: context,
            status: Int(response.status.code),
            credential: credential,
            reason: reason
        )

        let metrics = self.metrics
        let upload = Self.isUpload(route: context.endpointPath, method: request.method)
        // Without a fault rule, an answer of known length goes out untouched: a one-buffer body keeps its single
        // write (head, body and end together), and the entry is completed now, with that length as bytes out.
        if rule == nil, let length = response.body.contentLength {
            let sent = ByteCount()
            sent.add(length)
            Self.complete(entry, received: received, sent: sent, started: started, metrics: metrics, upload: upload)
            return response
        }
        let shape = BodyShape(
            throttle: throttle,
            resetAfter: action.resetAfterBytes,
            truncateAfter: action.truncateAfterBytes
        )
        let original = response.body
        // A reset drops the length so the body goes chunked and the cut shows as a broken chunked stream;
        // a truncation keeps the promised length and sends less.
        let chunked = shape.resetAfter != nil && Self.allowsBody(Int(response.status.code), method: request.method)
        let length = chunked ? nil : original.contentLength
        if chunked { response.headers[.contentLength] = nil }
        response.body = ResponseBody(contentLength: length) { writer in
            let sent = ByteCount()
            do {
                try await original.write(ShapedWriter(inner: writer, shape: shape, sent: sent))
            } catch {
                Self.complete(entry, received: received, sent: sent, started: started, metrics: metrics, upload: upload)
                throw error
            }
            Self.complete(entry, received: received, sent: sent, started: started, metrics: metrics, upload: upload)
        }
        return response
    }

    /// Records the status and the credential source, and counts the request for `/metrics`.
    private func answered(
        _ entry: Journal.Entry,
        request: Request,
        context: AppRequestContext,
        status: Int,
        credential: CredentialSource,
        reason: String? = nil
    ) {
        entry.update {
            $0.status = status
            $0.credential = credential
            // Messages quote bits of the request (a member name, a region); the journal keeps a bounded line.
            $0.reason = reason.map { String($0.prefix(512)) }
        }
        self.metrics.request(
            route: context.endpointPath ?? "unmatched",
            method: request.method.rawValue,
            status: status
        )
    }

    private static func complete(
        _ entry: Journal.Entry,
        received: ByteCount,
        sent: ByteCount,
        started: ContinuousClock.Instant,
        metrics: ServerMetrics,
        upload: Bool
    ) {
        let elapsed = ContinuousClock.now - started
        let bytesIn = received.value
        entry.update {
            $0.bytesIn = bytesIn
            $0.bytesOut = sent.value
            $0.durationMilliseconds =
                Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        }
        if upload { metrics.uploaded(bytes: bytesIn) }
    }
}

/// A byte count shared between a body and the journal.
final class ByteCount: Sendable {
    private let count = Atomic<Int>(0)

    func add(_ bytes: Int) { self.count.add(bytes, ordering: .relaxed) }

    var value: Int { self.count.load(ordering: .relaxed) }
}

/// Paces bytes to a rate: each piece waits until the bytes through it are due.
struct Pacer {
    let rate: Int
    let started = ContinuousClock.now
    private(set) var total = 0

    init(rate: Int) {
        self.rate = rate
    }

    /// Pieces small enough (an eighth of a second each) that pacing stays smooth.
    var pieceLength: Int { max(1, self.rate / 8) }

    mutating func wait(for bytes: Int) async throws {
        self.total += bytes
        let due = self.started + .nanoseconds(Int64(Double(self.total) / Double(self.rate) * 1e9))
        if due > .now { try await Task.sleep(until: due, clock: .continuous) }
    }
}

/// The request body, counted (and throttled when a fault says so) as the handler reads it.
struct CountedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let count: ByteCount
    let throttle: Int?

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let count: ByteCount
        var pacer: Pacer?
        var pending: ByteBuffer?

        mutating func next() async throws -> ByteBuffer? {
            if self.pending == nil || self.pending?.readableBytes == 0 {
                guard let chunk = try await self.base.next() else { return nil }
                self.pending = chunk
            }
            guard var pacer = self.pacer, var pending = self.pending else {
                let chunk = self.pending
                self.pending = nil
                self.count.add(chunk?.readableBytes ?? 0)
                return chunk
            }
            let piece = pending.readSlice(length: Swift.min(pacer.pieceLength, pending.readableBytes))!
            self.pending = pending
            try await pacer.wait(for: piece.readableBytes)
            self.pacer = pacer
            self.count.add(piece.readableBytes)
            return piece
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: self.base.makeAsyncIterator(), count: self.count, pacer: self.throttle.map(Pacer.init))
    }
}

/// How a fault shapes a response body.
struct BodyShape: Sendable {
    var throttle: Int?
    var resetAfter: Int?
    var truncateAfter: Int?

    /// The byte count after which the connection is cut, if any.
    var cutAfter: Int? {
        switch (self.resetAfter, self.truncateAfter) {
        case (let reset?, let truncate?): Swift.min(reset, truncate)
        case (let reset?, nil): reset
        case (nil, let truncate?): truncate
        case (nil, nil): nil
        }
    }
}

/// The connection is cut on purpose (a `reset_after_bytes` or `truncate_after_bytes` fault).
struct FaultCut: Error {}

/// Writes a response body through a fault's shape, counting what goes out.
struct ShapedWriter: ResponseBodyWriter {
    var inner: any ResponseBodyWriter
    let shape: BodyShape
    let sent: ByteCount
    var pacer: Pacer?

    init(inner: any ResponseBodyWriter, shape: BodyShape, sent: ByteCount) {
        self.inner = inner
        self.shape = shape
        self.sent = sent
        self.pacer = shape.throttle.map(Pacer.init)
    }

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        if let cut = self.shape.cutAfter {
            let allowed = max(0, cut - self.sent.value)
            if buffer.readableBytes > allowed {
                if allowed > 0 { try await self.send(buffer.readSlice(length: allowed)!) }
                throw FaultCut()
            }
        }
        try await self.send(buffer)
    }

    private mutating func send(_ buffer: ByteBuffer) async throws {
        guard var pacer = self.pacer else {
            try await self.inner.write(buffer)
            self.sent.add(buffer.readableBytes)
            return
        }
        var buffer = buffer
        while buffer.readableBytes > 0 {
            let piece = buffer.readSlice(length: Swift.min(pacer.pieceLength, buffer.readableBytes))!
            try await pacer.wait(for: piece.readableBytes)
            try await self.inner.write(piece)
            self.sent.add(piece.readableBytes)
        }
        self.pacer = pacer
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        // A cut that falls exactly at the end of the body still cuts: the client must see it.
        if let cut = self.shape.cutAfter, self.sent.value >= cut,
            self.shape.truncateAfter != nil || self.shape.resetAfter != nil
        {
            throw FaultCut()
        }
        try await self.inner.finish(trailingHeaders)
    }
}
