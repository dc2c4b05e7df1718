import Hummingbird
import NIOCore

/// S3's answer to a request whose work may take minutes (CompleteMultipartUpload joining its parts): work done
/// within `after` answers as usual; past it, 200 and the XML declaration go out, then a space every `every`
/// until the document, which is the result or, for work that failed, S3's `<Error>` inside the 200. S3 keeps
/// such a request alive so; SDKs read an `<Error>` in that 200 as the error (botocore, then, as a 500 it
/// retries). So no client's read timeout (botocore's 60 s, the Java SDK's 30 s) fires while the work runs,
/// and no client retries a completion that is still under way.
///
/// The work runs in a task of its own: a client that goes away does not stop it, as on S3.
struct KeptAliveAnswer: Sendable {
    /// How long the work may run before the 200 goes out; zero sends it at once.
    let after: Duration

    /// How often a space goes out once the 200 has: `after`, at least a second.
    var every: Duration { max(self.after, .seconds(1)) }

    private enum Event: Sendable {
        case tick
        case done(Result<S3XML, any Error>)
    }

    /// Runs `work` and answers with its document, kept alive past `after`.
    ///
    /// - Parameters:
    ///   - context: its context; a failure after the 200 is noted in its notes for the journal.
    ///   - work: makes the answer's document.
    /// - Returns: the answer.
    /// - Throws: what `work` throws, when it throws before the 200 has gone out.
    func answer(
        context: AppRequestContext,
        work: @escaping @Sendable () async throws -> S3XML
    ) async throws -> Response {
        let (events, continuation) = AsyncStream<Event>.makeStream()
        Task {
            let result: Result<S3XML, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            continuation.yield(.done(result))
            continuation.finish()
        }
        let (after, every) = (self.after, self.every)
        Task {
            try? await Task.sleep(for: after)
            // Ends with the stream: once the result is in, or nobody reads it any more.
            while true {
                if case .terminated = continuation.yield(.tick) { return }
                try? await Task.sleep(for: every)
            }
        }
        // With a wait, the first of the result and the first tick decides; without one, the 200 goes out at once.
        if self.after > .zero {
            var iterator = events.makeAsyncIterator()
            // Nothing comes only when the request's own task was cancelled: its client has gone.
            guard let first = await iterator.next() else { throw CancellationError() }
            if case .done(let result) = first { return try result.get().response() }
        }
        let notes = context.notes
        let requestID = context.id
        return Response(
            status: .ok,
            headers: [.contentType: "application/xml"],
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: S3XML.declaration))
                for await event in events {
                    switch event {
                    case .tick:
                        try await writer.write(ByteBuffer(string: " "))
                    case .done(.success(let document)):
                        try await writer.write(ByteBuffer(substring: document.root))
                    case .done(.failure(let error)):
                        let envelope = S3Error.rendering(error)
                        notes.refusal = RefusalNote(envelope)
                        try await writer.write(ByteBuffer(string: envelope.document(requestID: requestID)))
                    }
                }
                try await writer.finish(nil)
            }
        )
    }
}
