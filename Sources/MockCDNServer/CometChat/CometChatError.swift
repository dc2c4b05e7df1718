import Foundation
import Hummingbird
import MockCDNCore

/// An error on the CometChat-style secure-media API (settings, FAT, media upload, presign, upload URLs and
/// presigned PUTs), rendered as `{"error":{"code":"ERR_...","message":"..."}}`, with a `details` object
/// when a refused signature has S3's account of it.
struct CometChatError: ErrorEnvelope, ExplainedRefusal {
    let status: HTTPResponse.Status
    let code: String
    let message: String
    /// S3's code and elements for a refused presigned PUT (`S3Code`, `Expires`, `CanonicalRequest`...).
    var details: [String: String] = [:]
    /// The expiry of a credential refused for being past it (`ExplainedRefusal.expiredAt`).
    var expiredAt: Int64? = nil

    /// No FAT, or one that is not valid for this app (presign, media upload).
    static func notLoggedIn(_ message: String, expiredAt: Int64? = nil) -> CometChatError {
        .init(status: .unauthorized, code: "ERR_NOT_LOGGED_IN", message: message, expiredAt: expiredAt)
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
    /// A file over the size limit: CometChat's documented code for it, on every upload route.
    static func tooLarge(limit: Int) -> CometChatError {
        .init(
            status: .contentTooLarge,
            code: "ERR_FILE_SIZE_EXCEEDED",
            message: "file is larger than the upload limit of \(limit) bytes"
        )
    }
    static func fileCountExceeded(_ count: Int) -> CometChatError {
        .init(
            status: .badRequest,
            code: "ERR_FILE_COUNT_EXCEEDED",
            message: "\(count) files named; one request may name at most \(AppConfiguration.maximumUploadFiles)"
        )
    }
    static func invalidFileObject(_ message: String) -> CometChatError {
        .init(status: .badRequest, code: "ERR_INVALID_FILE_OBJECT", message: message)
    }
    /// A presigned PUT whose signature was refused: past its expiry, or not made for this request.
    static func presignedPutDenied(_ denial: AccessDenied) -> CometChatError {
        var details = ["S3Code": denial.code]
        for detail in denial.details { details[detail.name] = detail.value }
        return .init(
            status: denial.kind == .malformed ? .badRequest : .forbidden,
            code: denial.isExpiry ? "ERR_PRESIGNED_URL_EXPIRED" : "ERR_PERMISSION_DENIED",
            message: denial.message,
            details: details,
            expiredAt: denial.expiredAt
        )
    }
    static func uploadStalled(seconds: Int64) -> CometChatError {
        .init(
            status: .requestTimeout,
            code: "ERR_UPLOAD_STALLED",
            message: "no bytes arrived for \(seconds) s; the upload was dropped and nothing was stored"
        )
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var error: [String: Any] = ["code": self.code, "message": self.message]
        if !self.details.isEmpty { error["details"] = self.details }
        return try .jsonEnvelope(["error": error], status: self.status)
    }
}

extension CometChatError {
    var publicMessage: String { self.message }

    var explanation: String { self.code + ": " + self.message }

    /// CometChat's own codes for a refused presigned PUT, a refused FAT (the only other credential refusal of
    /// these routes: "not logged in", whichever rule failed) and a stalled upload.
    static func specific(_ error: any Error) -> CometChatError? {
        switch error {
        case let refusal as SignatureRefusal: .presignedPutDenied(refusal.denial)
        case let denial as AccessDenied: .notLoggedIn(denial.message, expiredAt: denial.expiredAt)
        case UploadFailure.stalled(let seconds): .uploadStalled(seconds: seconds)
        default: nil
        }
    }

    /// Any other failure, with CometChat's code for its category.
    init(_ failure: Failure) {
        let code =
            switch failure.category {
            case .invalidInput, .unprocessable: "ERR_BAD_REQUEST"
            case .unauthenticated: "ERR_UNAUTHORIZED"
            case .forbidden: "ERR_NOT_ALLOWED"
            case .notFound: "ERR_RESOURCE_NOT_FOUND"
            case .tooLarge: "ERR_FILE_SIZE_EXCEEDED"
            case .unavailable, .insufficientStorage: "ERR_UNAVAILABLE"
            case .internal: "ERR_INTERNAL"
            }
        self.init(status: failure.status, code: code, message: failure.message)
    }
}
