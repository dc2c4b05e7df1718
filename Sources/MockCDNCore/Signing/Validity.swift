/// When a verified credential holds by the clock: from `notBefore` (inclusive, when it has one) until
/// `expiresAt` (exclusive). Everything else a verification checks depends on the request alone, so a
/// credential that passed once passes again, with the same request, exactly while its validity holds.
public struct Validity: Sendable, Equatable {
    /// The first second it holds; nil for no lower bound.
    public var notBefore: Int64?
    /// The first second it no longer holds.
    public var expiresAt: Int64

    public init(notBefore: Int64? = nil, expiresAt: Int64) {
        self.notBefore = notBefore
        self.expiresAt = expiresAt
    }

    /// Whether it holds at `now`, Unix seconds.
    public func holds(at now: Int64) -> Bool {
        (self.notBefore.map { now >= $0 } ?? true) && now < self.expiresAt
    }
}
