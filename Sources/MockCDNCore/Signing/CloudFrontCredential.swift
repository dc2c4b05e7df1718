/// The CloudFront parameters of a request, as they appeared in its query.
public struct CloudFrontCredential: Sendable, Equatable {
    /// The query parameter names CloudFront signing adds; everything else belongs to the resource.
    public static let parameterNames: Set<String> = ["Expires", "Policy", "Signature", "Key-Pair-Id", "Hash-Algorithm"]

    public var expires: String?
    public var policy: String?
    public var signature: String
    public var keyPairID: String
    public var hashAlgorithm: String?

    /// Picks the CloudFront parameters out of a query; nil when the request carries no CloudFront
    /// credential at all (no `Signature` nor `Key-Pair-Id`).
    ///
    /// - Parameter query: percent-decoded query items, in order.
    /// - Returns: the credential, complete or not (an incomplete one fails verification with a reason).
    public init?(query: [(name: String, value: String)]) {
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        guard value("Signature") != nil || value("Key-Pair-Id") != nil else { return nil }
        self.expires = value("Expires")
        self.policy = value("Policy")
        self.signature = value("Signature") ?? ""
        self.keyPairID = value("Key-Pair-Id") ?? ""
        self.hashAlgorithm = value("Hash-Algorithm")
    }

    /// The cookie names of signed cookies: the query parameters' names after `CloudFront-`.
    public static let cookiePrefix = "CloudFront-"

    /// Picks signed cookies (`CloudFront-Expires` or `CloudFront-Policy`, `CloudFront-Signature`,
    /// `CloudFront-Key-Pair-Id`, and `CloudFront-Hash-Algorithm` for SHA-256) out of a request's cookies; nil
    /// when there is neither a `CloudFront-Signature` nor a `CloudFront-Key-Pair-Id` cookie.
    ///
    /// - Parameter cookie: the cookie value for a name, or nil.
    public init?(cookie: (String) -> String?) {
        self.init(
            query: ["Expires", "Policy", "Signature", "Key-Pair-Id", "Hash-Algorithm"].compactMap { name in
                cookie(Self.cookiePrefix + name).map { (name, $0) }
            }
        )
    }
}
