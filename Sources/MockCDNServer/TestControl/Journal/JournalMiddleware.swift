import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore

/// Records every request but the control routes' in the journal: method, path and query (redacted) on
/// arrival; then the credential that authorised it, its status, the reason of a refusal (and when a refused
/// credential expired) and the fault that fired, all read off the answer (`CredentialNote`, `RefusalNote`, `FaultNote`); then bytes in and out and
/// the duration, once the body has been written. It also parses the query once, for the routes below.
struct JournalMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    let journal: Journal
    /// Read when a request arrives, for its journal entry.
    let clock: MockClock

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        guard !ConsoleMark.isUnobserved(route: context.endpointPath, fields: request.headers) else {
            return try await next(request, context)
        }
        let started = ContinuousClock.now
        let query = QueryItems(request.uri.query)
        var context = context
        context.query = query
        let entry = self.arrived(request, query: query)
        let received = ByteCount()
        var request = request
        // Only bodies that carry something are wrapped: a GET keeps its own, so a route can still tell when
        // its client goes away (`consumeWithCancellationOnInboundClose` needs the body as it arrived).
        if request.method != .get, request.method != .head {
            request.body = RequestBody(
                asyncSequence: ObservedBody(base: request.body) { received.add($0 ?? 0) }
            )
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // Only an unrouted request gets here with an error: every route group answers in its envelope.
            response = try error.response(from: request, context: context)
        } catch {
            entry.update { $0.status = 500 }
            Self.complete(entry, received: received, sent: ByteCount(), started: started)
            throw error
        }
        let fault = Self.answered(entry, &response)
        // Without a fault, an answer of known length goes out untouched: a one-buffer body keeps its single
        // write (head, body and end together), and the entry is completed now, with that length as bytes out.
        if fault == nil, Self.completeNow(entry, response: response, received: received, started: started) {
            return response
        }
        let original = response.body
        response.body = ResponseBody(contentLength: original.contentLength) { writer in
            let sent = ByteCount()
            do {
                try await original.write(CountingWriter(inner: writer, sent: sent))
            } catch {
                Self.complete(entry, received: received, sent: sent, started: started)
                throw error
            }
            Self.complete(entry, received: received, sent: sent, started: started)
        }
        return response
    }

    /// Journals a request answered on the event loop (`FastReads`) as `handle` journals the same answer: the
    /// credential that authorised it, its status, and its length and the duration at once.
    ///
    /// Such an answer carries no note but the credential (a refusal or a fault is the router's), so the entry is
    /// made whole in one step, not started and then updated twice under its lock.
    ///
    /// - Parameters:
    ///   - request: the request, which carries no body.
    ///   - query: its query.
    ///   - credential: what authorised it.
    ///   - response: the answer.
    ///   - started: when the request arrived.
    func record(
        answered request: Request,
        query: QueryItems,
        credential: CredentialSource,
        response: Response,
        started: ContinuousClock.Instant
    ) {
        // As `completeNow`: an answer of unknown length would be completed once written, which none here is.
        let length = response.body.contentLength
        _ = self.journal.record(
            method: request.method.rawValue,
            path: request.uri.path,
            query: query,
            clock: self.clock.unixSeconds,
            state: .init(
                credential: credential,
                status: Int(response.status.code),
                bytesIn: 0,
                bytesOut: length ?? 0,
                durationMilliseconds: length == nil ? 0 : Self.milliseconds(since: started),
                fault: nil
            )
        )
    }

    /// A request's entry, as it arrives.
    private func arrived(_ request: Request, query: QueryItems) -> Journal.Entry {
        self.journal.record(
            method: request.method.rawValue,
            path: request.uri.path,
            query: query,
            clock: self.clock.unixSeconds,
            state: .init(credential: .none, status: 0, bytesIn: 0, bytesOut: 0, durationMilliseconds: 0, fault: nil)
        )
    }

    /// Records the answer's status and what its notes say, and takes the notes off it.
    ///
    /// - Returns: the id of the fault that fired, if any.
    private static func answered(_ entry: Journal.Entry, _ response: inout Response) -> String? {
        let credential = CredentialNote.take(from: &response)
        let refusal = RefusalNote.take(from: &response)
        let fault = FaultNote.take(from: &response)
        let faultKinds = FaultNote.takeKinds(from: &response)
        entry.update {
            $0.status = Int(response.status.code)
            $0.credential = credential
            // Messages quote bits of the request (a member name, a region); the journal keeps a bounded line.
            $0.reason = refusal.map { String($0.reason.prefix(512)) }
            $0.expiredAt = refusal?.expiredAt
            $0.fault = fault
            $0.faultKinds = faultKinds
        }
        return fault
    }

    /// Completes the entry of an answer of known length now, with that length as bytes out.
    ///
    /// - Returns: false when the length is not known: the entry is completed once the body is written.
    private static func completeNow(
        _ entry: Journal.Entry,
        response: Response,
        received: ByteCount,
        started: ContinuousClock.Instant
    ) -> Bool {
        guard let length = response.body.contentLength else { return false }
        let sent = ByteCount()
        sent.add(length)
        Self.complete(entry, received: received, sent: sent, started: started)
        return true
    }

    private static func complete(
        _ entry: Journal.Entry,
        received: ByteCount,
        sent: ByteCount,
        started: ContinuousClock.Instant
    ) {
        let duration = Self.milliseconds(since: started)
        entry.update {
            $0.bytesIn = received.value
            $0.bytesOut = sent.value
            $0.durationMilliseconds = duration
        }
    }

    private static func milliseconds(since started: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }
}
