import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore

/// Applies the first fault rule that fires on a request (every request but the control routes'): a delay,
/// a status answered instead of the route, a throttled upload body, a throttled, truncated or reset response
/// body. The rule's id and kinds go in the request's notes (`RequestNotes.fault`) for the journal. While any
/// rule is armed, the fast path answers nothing: every request comes here.
struct FaultObserver: RequestObserver {
    let faults: FaultInjector

    /// Statuses that carry no body (RFC 9110): an injected body would corrupt a kept-alive connection.
    static func allowsBody(_ status: Int, method: HTTPRequest.Method) -> Bool {
        method != .head && status != 204 && status != 304 && status >= 200
    }

    func allowsFastAnswer(_ head: HTTPRequest) -> Bool {
        !self.faults.isArmed
    }

    /// No rule was armed when the fast path took the request (`allowsFastAnswer`): nothing fires.
    func observeFast(_ request: Request, context: AppRequestContext, response: inout Response) {}

    func observe(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        guard !ConsoleMark.isUnobserved(request, context: context),
            let rule = self.faults.fire(
                method: request.method.rawValue,
                path: request.uri.path,
                queryNames: Set(context.query(of: request).decoded.map(\.name))
            )
        else { return try await next(request, context) }
        let action = rule.action
        let throttle = action.throttleBytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
        var request = request
        if let throttle, request.method != .get, request.method != .head {
            request.body = RequestBody(asyncSequence: ThrottledBody(base: request.body, rate: throttle))
        }
        if let delay = action.delayMilliseconds, delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
        var response: Response
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
            } catch let error as any HTTPResponseError {
                // An unrouted request's 404: shaped like any other answer.
                response = try error.response(from: request, context: context)
            }
        }
        context.notes.fault = RequestNotes.Fault(id: rule.id, kinds: action.kinds)
        let shape = BodyShape(
            throttle: throttle,
            resetAfter: action.resetAfterBytes,
            truncateAfter: action.truncateAfterBytes
        )
        guard shape.throttle != nil || shape.cutAfter != nil else { return response }
        let original = response.body
        // A reset drops the length so the body goes chunked and the cut shows as a broken chunked stream;
        // a truncation keeps the promised length and sends less.
        let chunked = shape.resetAfter != nil && Self.allowsBody(Int(response.status.code), method: request.method)
        if chunked { response.headers[.contentLength] = nil }
        response.body = ResponseBody(contentLength: chunked ? nil : original.contentLength) { writer in
            try await original.write(ShapedWriter(inner: writer, shape: shape, sent: ByteCount()))
        }
        return response
    }
}
