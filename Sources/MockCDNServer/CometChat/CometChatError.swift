import Foundation
import Hummingbird
import MockCDNCore

/// An error on the CometChat-style secure-media API (settings, FAT, media upload, presign), rendered as
/// `{"error":{"code":"ERR_...","message":"..."}}`.
struct CometChatError: HTTPResponseError {
    let status: HTTPResponse.Status
    let code: String
    let message: String

    /// No FAT, or one that is not valid for this app (presign, media upload).
    static func notLoggedIn(_ message: String) -> CometChatError {
        .init(status: .unauthorized, code: "ERR_NOT_LOGGED_IN", message: message)
    }
    /// No server JWT, or an invalid one (minting a FAT).
    static func unauthorized(_ message: String) -> CometChatError {
        .init(status: .unauthorized, code: "ERR_UNAUTHORIZED", message: message)
    }
    static func notAllowed(_ message: String) -> CometChatError {
        .init(status: .forbidden, code: "ERR_NOT_ALLOWED", message: message)
    }
    static func invalidURL(_ message: String) -> CometChatError {
        .init(status: .badRequest, code: "ERR_INVALID_URL", message: message)
    }
    static func badRequest(_ message: String) -> CometChatError {
        .init(status: .badRequest, code: "ERR_BAD_REQUEST", message: message)
    }
    static func notFound(_ message: String) -> CometChatError {
        .init(status: .notFound, code: "ERR_RESOURCE_NOT_FOUND", message: message)
    }
    static func appNotFound(_ appID: String) -> CometChatError {
        .init(status: .notFound, code: "ERR_APP_NOT_FOUND", message: "no app \(appID.prefix(64))")
    }
    static func `internal`(_ message: String) -> CometChatError {
        .init(status: .internalServerError, code: "ERR_INTERNAL", message: message)
    }
    static func tooLarge(limit: Int) -> CometChatError {
        .init(
            status: .contentTooLarge,
            code: "ERR_FILE_TOO_LARGE",
            message: "file is larger than the upload limit of \(limit) bytes"
        )
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = ["error": ["code": self.code, "message": self.message]]
        return try .jsonEnvelope(body, status: self.status)
    }
}

extension CometChatError {
    /// Any other failure, with CometChat's code for its category.
    init(_ failure: Failure) {
        let code =
            switch failure.category {
            case .invalidInput, .unprocessable: "ERR_BAD_REQUEST"
            case .unauthenticated: "ERR_UNAUTHORIZED"
            case .forbidden: "ERR_NOT_ALLOWED"
            case .notFound: "ERR_RESOURCE_NOT_FOUND"
            case .tooLarge: "ERR_FILE_TOO_LARGE"
            case .unavailable, .insufficientStorage: "ERR_UNAVAILABLE"
            case .internal: "ERR_INTERNAL"
            }
        self.init(status: failure.status, code: code, message: failure.message)
    }
}
