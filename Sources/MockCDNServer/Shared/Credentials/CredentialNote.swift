import HTTPTypes
import Hummingbird

/// Which credential authorised a request, as the journal records it.
///
/// It travels one way, outwards with the answer. A route that has authenticated its request runs the rest
/// of its work through `CredentialNote.answer`, which marks the response it returns with an internal header,
/// or wraps the error it throws in a `NotedError`. Each group's `ErrorEnvelopeMiddleware` answers the
/// wrapped error and puts the note on that answer, and `JournalMiddleware`, which the answer meets on its
/// way out, reads the note and takes it off: the header never reaches a client. No handler stores anything for a
/// middleware to read back, and a request refused before it authenticated carries no note (`none`).
enum CredentialNote {
    /// Internal: removed before the answer leaves the server.
    static let header = HTTPField.Name("x-mockcdn-internal-credential")!

    /// Runs the rest of a route that `source` authorised; its answer, or its error, carries the note.
    static func answer(
        authorisedBy source: CredentialSource,
        request: Request,
        context: AppRequestContext,
        _ body: () async throws -> some ResponseGenerator
    ) async throws -> Response {
        do {
            var response = try await body().response(from: request, context: context)
            Self.mark(&response, authorisedBy: source)
            return response
        } catch {
            throw NotedError(credential: source, error: error)
        }
    }

    /// Puts the note on an answer that `source` authorised.
    static func mark(_ response: inout Response, authorisedBy source: CredentialSource) {
        response.headers[Self.header] = source.rawValue
    }

    /// The note on an answer, taken off it.
    static func take(from response: inout Response) -> CredentialSource {
        response.takeNote(Self.header).flatMap(CredentialSource.init(rawValue:)) ?? .none
    }
}

/// An error thrown after a credential authorised the request: the error, and the note.
struct NotedError: Error {
    let credential: CredentialSource
    let error: any Error
}
