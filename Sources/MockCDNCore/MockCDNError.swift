/// An error from MockCDN's core: storage, signing, imaging.
///
/// Errors compare by kind only, so tests can write `#expect(throws: MockCDNError.objectNotFound)`; the
/// `detail` says what exactly went wrong and never contains a secret.
public struct MockCDNError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case invalidObjectKey
        case keyTooLong
        case objectNotFound
        case objectTooLarge
        case rangeNotSatisfiable
        case cryptoFailure
        case invalidKeyMaterial
        case imageFailure
        case imageSupportMissing
        case storageFailure
        case insufficientStorage
        case invalidConfiguration
    }

    /// The categories every API answers; see `ErrorCategory`.
    public typealias Category = ErrorCategory

    /// The category of this error.
    public var category: Category {
        switch self.kind {
        case .invalidObjectKey, .keyTooLong, .rangeNotSatisfiable, .invalidConfiguration: .invalidInput
        case .objectNotFound: .notFound
        case .objectTooLarge: .tooLarge
        case .imageFailure: .unprocessable
        case .storageFailure, .imageSupportMissing: .unavailable
        case .insufficientStorage: .insufficientStorage
        case .cryptoFailure, .invalidKeyMaterial: .internal
        }
    }

    private let kind: Kind
    /// What went wrong, for logs and error envelopes.
    public let detail: String

    private init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { self.detail }

    public static func == (lhs: MockCDNError, rhs: MockCDNError) -> Bool { lhs.kind == rhs.kind }

    /// An object key that is empty, names no app, holds a control character, or is no media path where one
    /// is needed (`ObjectKey.isMediaPath`).
    public static let invalidObjectKey = MockCDNError(.invalidObjectKey, "invalid object key")
    public static func invalidObjectKey(_ reason: String) -> MockCDNError { .init(.invalidObjectKey, reason) }

    /// An object key longer than S3 takes (1,024 bytes of UTF-8 within its app).
    public static let keyTooLong = MockCDNError(.keyTooLong, "key too long")
    public static func keyTooLong(limit: Int) -> MockCDNError {
        .init(.keyTooLong, "Your key is too long: at most \(limit) bytes of UTF-8")
    }

    /// No object is stored under the key.
    public static let objectNotFound = MockCDNError(.objectNotFound, "no such object")

    /// A body grew past the size limit while it streamed in.
    public static let objectTooLarge = MockCDNError(.objectTooLarge, "object too large")
    public static func objectTooLarge(limit: Int) -> MockCDNError {
        .init(.objectTooLarge, "object is larger than the limit of \(limit) bytes")
    }

    /// A byte range outside the object.
    public static let rangeNotSatisfiable = MockCDNError(.rangeNotSatisfiable, "range not satisfiable")

    /// libcrypto reported a failure (out of memory, or an unusable key).
    public static let cryptoFailure = MockCDNError(.cryptoFailure, "cryptographic operation failed")

    /// PEM text that holds no usable RSA key of the expected kind.
    public static let invalidKeyMaterial = MockCDNError(.invalidKeyMaterial, "invalid key material")

    /// libvips could not read, resize or encode an image; the detail is vips' own message.
    public static let imageFailure = MockCDNError(.imageFailure, "image operation failed")
    public static func imageFailure(_ message: String) -> MockCDNError { .init(.imageFailure, message) }

    /// libvips cannot be loaded (the `libMockCDNVips` module is not next to the binary): the server's
    /// fault, not the image's, so it is answered as unavailable.
    public static let imageSupportMissing = MockCDNError(.imageSupportMissing, "image support is not installed")
    public static func imageSupportMissing(_ message: String) -> MockCDNError { .init(.imageSupportMissing, message) }

    /// An app's configuration cannot be used (the detail says why).
    public static let invalidConfiguration = MockCDNError(.invalidConfiguration, "invalid configuration")
    public static func invalidConfiguration(_ message: String) -> MockCDNError { .init(.invalidConfiguration, message) }

    /// PEM text that holds no usable key, with the reason.
    public static func invalidKeyMaterial(_ message: String) -> MockCDNError { .init(.invalidKeyMaterial, message) }

    /// The disk store found its folder in a state it cannot use.
    public static let storageFailure = MockCDNError(.storageFailure, "storage failure")
    public static func storageFailure(_ message: String) -> MockCDNError { .init(.storageFailure, message) }

    /// A store's byte budget has no room left for the object; nothing of it was kept.
    public static let insufficientStorage = MockCDNError(.insufficientStorage, "insufficient storage")
    public static func insufficientStorage(_ message: String) -> MockCDNError { .init(.insufficientStorage, message) }
}
