import Hummingbird
import MockCDNCore

/// A credential that a media read may carry and that another surface defines (CometChat's File Access
/// Token): the surface finds and checks it, and `MediaReadAuthorizer` asks it before its own credentials.
protocol ReadCredentialCheck: Sendable {
    /// Query parameters of this credential that a client may append to a link MockCDN signed.
    var appendableParameters: Set<String> { get }

    /// The read's credential of this kind; nil when it carries none.
    ///
    /// - Parameters:
    ///   - request: the read.
    ///   - query: its query.
    /// - Throws: a `CategorizedError` when the request carries the credential in a way no check can judge
    ///   (two different tokens).
    func find(in request: Request, query: QueryItems) throws -> ReadCredential?
}

/// A credential found on a read, ready to be checked against the app it reads from.
struct ReadCredential: Sendable {
    /// What the journal records.
    let source: CredentialSource
    /// What identifies this credential among the verified ones (kind and value, never logged); nil for one
    /// that is checked every time.
    let cacheKey: [String]?
    /// Checks it for `app` at the clock's `now`, returning how long it holds.
    let verify: @Sendable (_ app: MediaApp, _ now: Int64) throws(AccessDenied) -> Validity
}
