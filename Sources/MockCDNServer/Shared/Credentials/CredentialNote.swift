import Hummingbird

/// Which credential authorised a request, as the journal records it.
///
/// A route that has authenticated its request runs the rest of its work through `CredentialNote.answer`,
/// which notes the credential in the request's notes (`RequestNotes.credential`) first, so that its answer,
/// and the error answer of anything it throws, are journaled with it. A request refused before it
/// authenticated keeps `none`.
enum CredentialNote {
    /// Runs the rest of a route that `source` authorised, the credential noted.
    static func answer(
        authorisedBy source: CredentialSource,
        request: Request,
        context: AppRequestContext,
        _ body: () async throws -> some ResponseGenerator
    ) async throws -> Response {
        context.notes.credential = source
        return try await body().response(from: request, context: context)
    }
}
