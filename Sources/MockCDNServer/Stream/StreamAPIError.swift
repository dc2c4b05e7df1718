import Foundation
import Hummingbird
import MockCDNCore

/// An error on Stream's REST API, rendered in Stream's envelope:
/// `{"code","message","exception_fields","StatusCode","duration","more_info","details"}`.
///
/// Every member Stream's generated `APIError` model requires is present: getstream (the v2 server SDK)
/// parses errors strictly, and a missing `details` or `more_info` surfaces as a `KeyError` in the caller
/// instead of its `StreamApiException`.
struct StreamAPIError: ErrorEnvelope, ExplainedRefusal {
    let status: HTTPResponse.Status
    /// Stream's error code: 4 input, 5 authentication, 16 not found, 17 not allowed, 22 too large,
    /// 40 token expired, -1 internal.
    let code: Int
    let message: String
    /// The expiry of a token refused for being past it (`ExplainedRefusal.expiredAt`).
    var expiredAt: Int64? = nil

    static func input(_ message: String) -> StreamAPIError { .init(status: .badRequest, code: 4, message: message) }
    static func authentication(_ message: String) -> StreamAPIError {
        .init(status: .unauthorized, code: 5, message: message)
    }
    static func tokenExpired(_ message: String, expiredAt: Int64? = nil) -> StreamAPIError {
        .init(status: .unauthorized, code: 40, message: message, expiredAt: expiredAt)
    }
    static func notAllowed(_ message: String) -> StreamAPIError {
        .init(status: .forbidden, code: 17, message: message)
    }
    static func notFound(_ message: String) -> StreamAPIError { .init(status: .notFound, code: 16, message: message) }
    static func `internal`(_ message: String) -> StreamAPIError {
        .init(status: .internalServerError, code: -1, message: message)
    }
    static func tooLarge(limit: Int) -> StreamAPIError {
        .init(status: .contentTooLarge, code: 22, message: "file is larger than the upload limit of \(limit) bytes")
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let duration = (context as? AppRequestContext)?.duration ?? "0.00ms"
        let body: [String: any Sendable] = [
            "code": self.code,
            "message": self.message,
            "exception_fields": [String: String](),
            "StatusCode": self.status.code,
            "duration": duration,
            "more_info": "https://getstream.io/chat/docs/api_errors_response",
            "details": [Int](),
        ]
        return try .jsonEnvelope(body, status: self.status)
    }
}

extension StreamAPIError {
    var publicMessage: String { self.message }

    var explanation: String { "Stream error \(self.code): " + self.message }

    /// Stream's code 40 for an expired token; any other JWT refusal is code 5 by its category.
    static func specific(_ error: any Error) -> StreamAPIError? {
        guard let error = error as? JWTError, error.kind == .expired else { return nil }
        return .tokenExpired(error.message, expiredAt: error.expiredAt)
    }

    /// Any other failure, with Stream's code for its category (-1 where Stream has none).
    init(_ failure: Failure) {
        let code =
            switch failure.category {
            case .invalidInput, .unprocessable: 4
            case .unauthenticated: 5
            case .forbidden: 17
            case .notFound: 16
            case .tooLarge: 22
            case .unavailable, .insufficientStorage, .internal: -1
            }
        self.init(status: failure.status, code: code, message: failure.message)
    }
}
