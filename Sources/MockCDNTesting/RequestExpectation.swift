/// What requests a test expects the server to have answered, for ``RunningMockCDN/verify(_:ordered:since:)``:
/// each field given must match a journal entry, and the number of entries that match must be within
/// ``count``. The server's `docs/verify.md` describes the rules.
public struct RequestExpectation: Sendable, Encodable {
    /// A status, or a class of them.
    public enum Status: Sendable, Equatable, ExpressibleByIntegerLiteral, Encodable {
        /// Exactly this status.
        case code(Int)
        /// Any status of this hundred: `.inClass(4)` is `4xx`.
        case inClass(Int)

        /// An exact status: `status: 200`.
        ///
        /// - Parameter value: the status.
        public init(integerLiteral value: Int) {
            self = .code(value)
        }

        /// `200`, or `"4xx"`.
        ///
        /// - Parameter encoder: the JSON encoder.
        /// - Throws: what the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .code(let status): try container.encode(status)
            case .inClass(let hundreds): try container.encode("\(hundreds)xx")
            }
        }
    }

    /// How many matching requests meet the expectation, both bounds included.
    public struct Count: Sendable, Equatable, Encodable {
        /// The fewest; 0 when not given.
        public var min: Int?
        /// The most; nil for no bound.
        public var max: Int?

        /// At least `count` (the default is at least once).
        ///
        /// - Parameter count: the fewest.
        /// - Returns: the count.
        public static func atLeast(_ count: Int) -> Count { Count(min: count, max: nil) }

        /// Exactly `count`; `.exactly(0)` is "never".
        ///
        /// - Parameter count: the number.
        /// - Returns: the count.
        public static func exactly(_ count: Int) -> Count { Count(min: count, max: count) }

        /// At most `count`.
        ///
        /// - Parameter count: the most.
        /// - Returns: the count.
        public static func atMost(_ count: Int) -> Count { Count(min: 0, max: count) }

        /// Between `range`'s bounds, both included.
        ///
        /// - Parameter range: the bounds.
        /// - Returns: the count.
        public static func between(_ range: ClosedRange<Int>) -> Count {
            Count(min: range.lowerBound, max: range.upperBound)
        }
    }

    /// The method, e.g. `GET`; nil for any.
    public var method: String?
    /// A glob over the path as sent: `*` within a segment, a `**` segment across segments; nil for any.
    public var path: String?
    /// Text the (redacted) query must contain; nil for any.
    public var query: String?
    /// The credential source the journal names (`fat-header`, `presigned`, `cloudfront`...); nil for any.
    public var credential: String?
    /// The status answered; nil for any.
    public var status: Status?
    /// How many requests must match; nil for at least once.
    public var count: Count?

    /// An expectation; every field left out matches anything.
    ///
    /// - Parameters:
    ///   - method: the method, e.g. `GET`.
    ///   - path: a path glob, e.g. `/demo/**/*.jpg`.
    ///   - query: text the query must contain.
    ///   - credential: the credential source, e.g. `fat-header`.
    ///   - status: the status, or a class (`.inClass(4)`).
    ///   - count: how many; at least once by default.
    public init(
        method: String? = nil,
        path: String? = nil,
        query: String? = nil,
        credential: String? = nil,
        status: Status? = nil,
        count: Count? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.credential = credential
        self.status = status
        self.count = count
    }
}
