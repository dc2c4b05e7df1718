import HTTPTypes
import Hummingbird

/// A request that another surface answers, although a surface's route matched it: one whose query names
/// `parameter`, or that `matches` otherwise. S3's ListParts (`GET /{app}/{key}?uploadId=`) has the path and
/// method of a CDN read, and so have CometChat's files-host calls (a media URL fetched with the `appId` and
/// `apiKey` headers, and the `?fat=` URL that answers); the read route hands them over, and `App+build.swift`
/// wires the surfaces, so neither names the other's types.
struct QueryHandoff: Sendable {
    /// Whether a request is the other surface's.
    let matches: @Sendable (HTTPFields, QueryItems) -> Bool
    /// Answers the request, in the other surface's envelope.
    let answer: @Sendable (Request, AppRequestContext) async throws -> Response

    /// A handoff of the requests whose query names `parameter`.
    ///
    /// - Parameters:
    ///   - parameter: the query parameter that makes a request the other surface's.
    ///   - answer: the other surface's answer.
    init(parameter: String, answer: @escaping @Sendable (Request, AppRequestContext) async throws -> Response) {
        self.matches = { _, query in query.decoded.contains { $0.name == parameter } }
        self.answer = answer
    }

    /// A handoff of the requests `matches` claims.
    ///
    /// - Parameters:
    ///   - matches: whether a request, by its headers and query, is the other surface's.
    ///   - answer: the other surface's answer.
    init(
        matching matches: @escaping @Sendable (HTTPFields, QueryItems) -> Bool,
        answer: @escaping @Sendable (Request, AppRequestContext) async throws -> Response
    ) {
        self.matches = matches
        self.answer = answer
    }

    /// Whether a request with this query and these headers is the other surface's.
    func claims(_ query: QueryItems, headers: HTTPFields = [:]) -> Bool {
        self.matches(headers, query)
    }
}
