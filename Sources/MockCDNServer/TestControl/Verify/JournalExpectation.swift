/// One expectation of `POST /_mockcdn/verify`: the fields a journal entry must show to match it (only those
/// given are compared), and how many entries must match.
struct JournalExpectation: Sendable {
    /// A field an expectation may compare, in the order reports name them.
    enum Field: String, Sendable, CaseIterable {
        case method, path, query, credential, status
    }

    /// A status, or a class of them (`4xx`).
    enum Status: Sendable, Equatable, CustomStringConvertible {
        /// This status.
        case exactly(Int)
        /// The hundreds digit: `4` for `4xx`.
        case inClass(Int)

        /// Whether an entry's status is this one or in this class.
        func matches(_ status: Int) -> Bool {
            switch self {
            case .exactly(let expected): status == expected
            case .inClass(let hundreds): status / 100 == hundreds
            }
        }

        /// `200`, `4xx`.
        var description: String {
            switch self {
            case .exactly(let status): String(status)
            case .inClass(let hundreds): "\(hundreds)xx"
            }
        }
    }

    /// How many matching entries meet the expectation: `min` to `max`, both included; no `max` is no bound.
    struct Count: Sendable, Equatable, CustomStringConvertible {
        /// The fewest.
        var min: Int
        /// The most; nil for no bound.
        var max: Int?

        /// The default: at least once.
        static let atLeastOnce = Count(min: 1, max: nil)

        /// Whether `count` matches meet the expectation.
        func holds(_ count: Int) -> Bool {
            count >= self.min && self.max.map { count <= $0 } ?? true
        }

        /// `at least 1`, `exactly 2`, `at most 3`, `between 1 and 3`.
        var description: String {
            switch (self.min, self.max) {
            case (let min, nil): "at least \(min)"
            case (let min, let max?) where min == max: "exactly \(min)"
            case (0, let max?): "at most \(max)"
            case (let min, let max?): "between \(min) and \(max)"
            }
        }

        /// `at least 1 matching request`, `exactly 2 matching requests`.
        var requests: String {
            // The phrase ends in `max` when there is one; `between` always has a `max` of 2 or more.
            self.description + ((self.max ?? self.min) == 1 ? " matching request" : " matching requests")
        }
    }

    /// Upper-cased.
    var method: String?
    /// A glob over the entry's path.
    var path: PathGlob?
    /// Text the entry's (redacted) query must contain.
    var query: String?
    /// The entry's credential source.
    var credential: CredentialSource?
    /// The entry's status, or its class.
    var status: Status?
    /// How many entries must match.
    var count: Count = .atLeastOnce

    /// The fields given, in report order.
    var fields: [Field] {
        Field.allCases.filter { field in
            switch field {
            case .method: self.method != nil
            case .path: self.path != nil
            case .query: self.query != nil
            case .credential: self.credential != nil
            case .status: self.status != nil
            }
        }
    }

    /// The expectation in words: `method GET, path /demo/**, credential fat-header, status 200, count at least
    /// 1`.
    var summary: String {
        var parts: [String] = []
        if let method { parts.append("method \(method)") }
        if let path { parts.append("path \(path)") }
        if let query { parts.append("query containing \(query)") }
        if let credential { parts.append("credential \(credential.rawValue)") }
        if let status { parts.append("status \(status)") }
        parts.append("count \(self.count)")
        return parts.joined(separator: ", ")
    }
}
