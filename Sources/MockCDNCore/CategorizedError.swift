/// What kind of failure an error is, whatever the API that answers it: each API surface renders a category
/// in its own envelope (Stream's JSON, CometChat's JSON, S3's XML, the control routes' JSON).
public enum ErrorCategory: Sendable, Equatable, CaseIterable {
    /// A bad request: 400.
    case invalidInput
    /// No credential, or one that does not hold: 401.
    case unauthenticated
    /// A credential that holds but may not do this: 403.
    case forbidden
    /// 404.
    case notFound
    /// A body over a limit: 413.
    case tooLarge
    /// Well-formed, but not something MockCDN can process (an image libvips cannot read): 422.
    case unprocessable
    /// The store (or a library) cannot serve now: 503.
    case unavailable
    /// The store is out of room: 507 where the API has it.
    case insufficientStorage
    /// A fault of MockCDN's own: 500.
    case `internal`
}

/// An error that carries its category and a message a client may read. Every error type of MockCDN's
/// conforms (or is an envelope already), so an error that reaches an API's edge is rendered by what it is,
/// never by a `catch` in a handler; `scripts/check-errors.py` fails the build's tests on one that does not.
/// The model is Hummingbird's `HTTPResponseError`, without the HTTP: MockCDNCore has no HTTP framework.
public protocol CategorizedError: Error {
    /// What kind of failure this is.
    var category: ErrorCategory { get }
    /// Safe to show: no path of the server's, no secret, no credential.
    var publicMessage: String { get }
}

extension MockCDNError: CategorizedError {
    public var publicMessage: String { self.detail }
}

extension UploadRejection: CategorizedError {
    public var category: ErrorCategory { .invalidInput }
    public var publicMessage: String { self.message }
}

extension JWTError: CategorizedError {
    public var category: ErrorCategory { .unauthenticated }
    public var publicMessage: String { self.message }
}

extension AccessDenied: CategorizedError {
    /// S3 answers a credential that does not fit the endpoint (another region) 400, any other refusal 403.
    public var category: ErrorCategory { self.kind == .malformed ? .invalidInput : .forbidden }
    public var publicMessage: String { self.message }
}

extension PostPolicyRefusal: CategorizedError {
    /// A form the policy or credential does not allow is forbidden; one S3 cannot read is invalid input, and a
    /// size limit is too large (S3 answers both 400).
    public var category: ErrorCategory {
        switch self.kind {
        case .forbidden: .forbidden
        case .malformed: .invalidInput
        case .tooLarge: .tooLarge
        }
    }

    /// S3's message; it never holds a signature.
    public var publicMessage: String { self.message }
}

extension TransformRefusal: CategorizedError {
    public var category: ErrorCategory { self.kind == .invalid ? .invalidInput : .unprocessable }
    public var publicMessage: String { self.message }
}

extension ImageTransform.Invalid: CategorizedError {
    public var category: ErrorCategory { .invalidInput }
    public var publicMessage: String { self.message }
}

extension RegularFile.Refusal: CategorizedError {
    /// A file MockCDN wrote can no longer be read as it was written: the store cannot serve it now.
    var category: ErrorCategory { .unavailable }
    /// The reason without the path, which is the server's.
    var publicMessage: String { "a file of the data directory cannot be read" }
}
