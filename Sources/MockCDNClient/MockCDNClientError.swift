import Foundation

/// Why a MockCDN client call failed.
///
/// Compare with the static members (`error == .notLoggedIn`): equality looks at the kind only, and
/// ``detail`` says what exactly happened. A struct rather than an enum, so kinds can be added without
/// breaking a caller's `switch`.
public struct MockCDNClientError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case notLoggedIn, invalidURL, network, invalidResponse, tooLarge, storageFull, signingFailed
    }

    private let kind: Kind
    /// What exactly happened (a server message, a status, a transport error); never a token.
    public let detail: String

    private init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// No credential (a File Access Token, or the user token uploads and mints need), or the server refused it
    /// (401, `ERR_NOT_LOGGED_IN`).
    public static let notLoggedIn = MockCDNClientError(.notLoggedIn, "not logged in")
    /// The URL is not a media URL of this app (`ERR_INVALID_URL`), or a local input is unusable: a file that
    /// cannot be read, a channel that is not `type:id`.
    public static let invalidURL = MockCDNClientError(.invalidURL, "invalid media URL")
    /// The request did not reach the server or its answer did not come back.
    public static let network = MockCDNClientError(.network, "network error")
    /// The server answered something unexpected (a status, or a body that does not decode); also cookies that
    /// are not a complete CloudFront set (``CloudFrontCookies``).
    public static let invalidResponse = MockCDNClientError(.invalidResponse, "invalid response")
    /// The server refused a file as larger than it takes: 413 (`ERR_FILE_SIZE_EXCEEDED` on CometChat's routes,
    /// code 22 on Stream's) or S3's 400 `EntityTooLarge` for a form over its policy's size range.
    public static let tooLarge = MockCDNClientError(.tooLarge, "file too large")
    /// The server has no room to keep the file now: 507 Insufficient Storage, on any upload route. Nothing was
    /// stored, and the same upload may succeed later, so an app can offer to retry rather than report a bug.
    public static let storageFull = MockCDNClientError(.storageFull, "server storage full")
    /// The signing closure of a ``CloudFrontURLSigner`` threw; the detail names the error's type, never the key.
    public static let signingFailed = MockCDNClientError(.signingFailed, "signing failed")

    static func notLoggedIn(_ detail: String) -> MockCDNClientError { .init(.notLoggedIn, detail) }
    static func invalidURL(_ detail: String) -> MockCDNClientError { .init(.invalidURL, detail) }
    static func network(_ detail: String) -> MockCDNClientError { .init(.network, detail) }
    static func invalidResponse(_ detail: String) -> MockCDNClientError { .init(.invalidResponse, detail) }
    static func tooLarge(_ detail: String) -> MockCDNClientError { .init(.tooLarge, detail) }
    static func storageFull(_ detail: String) -> MockCDNClientError { .init(.storageFull, detail) }
    static func signingFailed(_ detail: String) -> MockCDNClientError { .init(.signingFailed, detail) }

    /// Errors are equal when they are of the same kind, whatever the detail.
    ///
    /// - Parameters:
    ///   - lhs: an error.
    ///   - rhs: another error.
    /// - Returns: true when both are of the same kind.
    public static func == (lhs: MockCDNClientError, rhs: MockCDNClientError) -> Bool { lhs.kind == rhs.kind }

    /// The detail, so a failed test prints what happened.
    public var description: String { self.detail }
}
