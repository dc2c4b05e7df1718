import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore

/// Records every request but the control routes' (and the console's own reads) in the journal: method, path,
/// query (redacted) and route on arrival; then the credential that authorised it, its status, the reason of a
/// refusal (and when a refused credential expired) and the fault that fired, all read from the request's
/// notes once it is answered (`RequestNotes`); then bytes in and out and the duration, once the body has been
/// written.
struct JournalObserver: RequestObserver {
    let journal: Journal
    /// Read when a request arrives, for its journal entry.
    let clock: MockClock

    func observe(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        guard !ConsoleMark.isUnobserved(request, context: context) else {
            return try await next(request, context)
        }
        let started = ContinuousClock.now
        let entry = self.arrived(request, query: context.query(of: request), route: context.notes.route)
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
        let fault = Self.answered(entry, status: response.status, notes: context.notes)
        // Without a fault, an answer of known length goes out untouched: a one-buffer body keeps its single
        // write (head, body and end together), and the entry is completed now, with that length as bytes out.
        if fault == nil, Self.completeNow(entry, response: response, received: received, started: started) {
            return response
        }
        let original = response.body
        let notes = context.notes
        response.body = ResponseBody(contentLength: original.contentLength) { writer in
            let sent = ByteCount()
            do {
                try await original.write(CountingWriter(inner: writer, sent: sent))
            } catch {
                Self.complete(entry, received: received, sent: sent, started: started, notes: notes)
                throw error
            }
            Self.complete(entry, received: received, sent: sent, started: started, notes: notes)
        }
        return response
    }

    /// Journals an answer the fast path made as `observe` journals the same answer: the credential that
    /// authorised it, its status, and its length and the duration at once.
    ///
    /// Such an answer has no refusal or fault in its notes (those are the router's), so the entry is made
    /// whole in one step, not started and then updated twice under its lock.
    func observeFast(_ request: Request, context: AppRequestContext, response: inout Response) {
        guard !ConsoleMark.isUnobserved(request, context: context) else { return }
        // As `completeNow`: an answer of unknown length would be completed once written, which none here is.
        let length = response.body.contentLength
        _ = self.journal.record(
            method: request.method.rawValue,
            path: request.uri.path,
            query: context.query(of: request),
            route: context.notes.route,
            clock: self.clock.unixSeconds,
            state: .init(
                credential: context.notes.credential,
                status: Int(response.status.code),
                bytesIn: 0,
                bytesOut: length ?? 0,
                durationMilliseconds: length == nil ? 0 : Self.milliseconds(since: context.started),
                fault: nil
            )
        )
    }

    /// A request's entry, as it arrives.
    private func arrived(_ request: Request, query: QueryItems, route: String?) -> Journal.Entry {
        self.journal.record(
            method: request.method.rawValue,
            path: request.uri.path,
            query: query,
            route: route,
            clock: self.clock.unixSeconds,
            state: .init(credential: .none, status: 0, bytesIn: 0, bytesOut: 0, durationMilliseconds: 0, fault: nil)
        )
    }

    /// Records the answer's status and what the request's notes say.
    ///
    /// - Returns: the id of the fault that fired, if any.
    private static func answered(_ entry: Journal.Entry, status: HTTPResponse.Status, notes: RequestNotes) -> String? {
        let refusal = notes.refusal
        let fault = notes.fault
        let credential = notes.credential
        entry.update {
            $0.status = Int(status.code)
            $0.credential = credential
            Self.record(refusal, in: &$0)
            $0.fault = fault?.id
            $0.faultKinds = fault?.kinds ?? []
        }
        return fault?.id
    }

    private static func record(_ refusal: RefusalNote?, in state: inout Journal.Entry.State) {
        // Messages quote bits of the request (a member name, a region); the journal keeps a bounded line.
        state.reason = refusal.map { String($0.reason.prefix(512)) }
        state.expiredAt = refusal?.expiredAt
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

    /// Completes the entry once its answer is written.
    ///
    /// - Parameter notes: for an answer written after its head, the request's notes then: a refusal noted
    ///   while the body was written (an `<Error>` inside a kept-alive 200, `KeptAliveAnswer`) is recorded.
    private static func complete(
        _ entry: Journal.Entry,
        received: ByteCount,
        sent: ByteCount,
        started: ContinuousClock.Instant,
        notes: RequestNotes? = nil
    ) {
        let duration = Self.milliseconds(since: started)
        let refusal = notes?.refusal
        entry.update {
            $0.bytesIn = received.value
            $0.bytesOut = sent.value
            $0.durationMilliseconds = duration
            if let refusal { Self.record(refusal, in: &$0) }
        }
    }

    private static func milliseconds(since started: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }
}
