import Hummingbird

/// A request that another surface answers, although a surface's route matched it: one whose query names
/// `parameter`. S3's ListParts (`GET /{app}/{key}?uploadId=`) has the path and method of a CDN read; the
/// read route hands it over, and `App+build.swift` wires the two, so neither surface names the other's types.
struct QueryHandoff: Sendable {
    /// The query parameter that makes a request the other surface's.
    let parameter: String
    /// Answers the request, in the other surface's envelope.
    let answer: @Sendable (Request, AppRequestContext) async throws -> Response

    /// Whether the request is the other surface's.
    func claims(_ query: QueryItems) -> Bool {
        query.decoded.contains { $0.name == self.parameter }
    }
}
