import HTTPTypes
import Hummingbird
import MockCDNCore

/// A File Access Token as a request carries it: `fat` header or `fat` query parameter (percent-decoded,
/// also after CometChat's stray second `?`).
struct FATCredential {
    let token: String
    let source: CredentialSource

    static let headerName = HTTPField.Name("fat")!
    static let parameterName = "fat"

    /// Header and query (or repeated parameters) carry different tokens: the client is buggy, and guessing
    /// which one it meant would hide that.
    struct Conflict: CategorizedError {
        let message: String

        var category: ErrorCategory { .invalidInput }
        var publicMessage: String { self.message }
    }

    /// The request's FAT; nil when it sends none (an empty `fat` header counts as none: CometChat's SDK
    /// sends one when no user is logged in).
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - query: its query.
    /// - Throws: `Conflict` when the request carries two different tokens.
    static func find(in request: Request, query: QueryItems) throws(Conflict) -> FATCredential? {
        // A percent-encoded header is decoded, as CometChat's SDK does before sending; base64 has no `%`.
        let headers = request.headers[values: headerName].filter { !$0.isEmpty }.map { value in
            guard value.utf8.contains(UInt8(ascii: "%")) else { return value }
            return PercentEncoding.decode(value.utf8) ?? value
        }
        let queries = query.values(parameterName).filter { !$0.isEmpty }
        guard headers.allSatisfy({ $0 == headers[0] }) else {
            throw Conflict(message: "The fat header is repeated with different tokens")
        }
        guard queries.allSatisfy({ $0 == queries[0] }) else {
            throw Conflict(message: "The fat query parameter is repeated with different tokens")
        }
        switch (headers.first, queries.first) {
        case (nil, nil): return nil
        case (let header?, nil): return FATCredential(token: header, source: .fatHeader)
        case (nil, let query?): return FATCredential(token: query, source: .fatQuery)
        case (let header?, let query?):
            guard header == query else {
                throw Conflict(message: "The fat header and the fat query parameter carry different tokens")
            }
            return FATCredential(token: header, source: .fatHeader)
        }
    }
}
