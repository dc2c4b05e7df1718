import Foundation

/// Why a MockCDN client call failed.
public struct MockCDNClientError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case notLoggedIn, invalidURL, network, invalidResponse
    }

    private let kind: Kind
    /// What exactly happened (a server message, a status, a transport error); never a token.
    public let detail: String

    private init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// No File Access Token, or the server refused it (`ERR_NOT_LOGGED_IN`).
    public static let notLoggedIn = MockCDNClientError(.notLoggedIn, "not logged in")
    /// The URL is not a media URL of this app (`ERR_INVALID_URL`).
    public static let invalidURL = MockCDNClientError(.invalidURL, "invalid media URL")
    /// The request did not reach the server or its answer did not come back.
    public static let network = MockCDNClientError(.network, "network error")
    /// The server answered something unexpected.
    public static let invalidResponse = MockCDNClientError(.invalidResponse, "invalid response")

    static func notLoggedIn(_ detail: String) -> MockCDNClientError { .init(.notLoggedIn, detail) }
    static func invalidURL(_ detail: String) -> MockCDNClientError { .init(.invalidURL, detail) }
    static func network(_ detail: String) -> MockCDNClientError { .init(.network, detail) }
    static func invalidResponse(_ detail: String) -> MockCDNClientError { .init(.invalidResponse, detail) }

    /// Errors are equal when they are of the same kind, whatever the detail.
    public static func == (lhs: MockCDNClientError, rhs: MockCDNClientError) -> Bool { lhs.kind == rhs.kind }

    /// The detail.
    public var description: String { self.detail }
}
