import Hummingbird
import MockCDNCore

/// An API surface's error body (Stream's JSON, CometChat's JSON, S3's XML, the control routes' JSON): the
/// one place where that surface turns an error into HTTP. Each surface's route group renders every error
/// its handlers throw through `ErrorEnvelopeMiddleware`, so handlers just `try`.
protocol ErrorEnvelope: HTTPResponseError, CategorizedError {
    /// The envelope of any failure, by its category.
    init(_ failure: Failure)

    /// This API's own answer to an error it words differently from the error's category (S3's
    /// `SignatureDoesNotMatch`, Stream's code 40 for an expired token); nil for the rest.
    static func specific(_ error: any Error) -> Self?
}

extension ErrorEnvelope {
    static func specific(_ error: any Error) -> Self? { nil }

    /// Any error in this envelope: itself, this API's own wording of it, or its category's.
    static func rendering(_ error: any Error) -> Self {
        if let envelope = error as? Self { return envelope }
        return Self.specific(error) ?? Self(Failure(error))
    }

    /// An envelope that reaches another surface's group is answered by its status.
    var category: ErrorCategory { Failure.category(of: self.status) }
}
