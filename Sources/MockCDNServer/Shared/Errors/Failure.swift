import HTTPTypes
import MockCDNCore

/// Any error, as every API answers it: its category and a message safe to show. An error that does not say
/// what it is (`CategorizedError`) is internal; `scripts/check-errors.py` keeps MockCDN's own errors from
/// being one.
struct Failure: Sendable {
    let category: ErrorCategory
    /// Safe to show: no path of the server's, no secret.
    let message: String

    init(category: ErrorCategory, message: String) {
        self.category = category
        self.message = message
    }

    /// Classifies an error from anywhere below a route.
    init(_ error: any Error) {
        if let error = error as? any CategorizedError {
            self.init(category: error.category, message: error.publicMessage)
        } else {
            self.init(category: .internal, message: "internal error")
        }
    }

    /// The HTTP status of the category.
    var status: HTTPResponse.Status { Self.status(of: self.category) }

    /// The HTTP status that answers a category.
    static func status(of category: ErrorCategory) -> HTTPResponse.Status {
        switch category {
        case .invalidInput: .badRequest
        case .unauthenticated: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .tooLarge: .contentTooLarge
        case .unprocessable: .unprocessableContent
        case .unavailable: .serviceUnavailable
        case .insufficientStorage: HTTPResponse.Status(code: 507)
        case .internal: .internalServerError
        }
    }

    /// The category an HTTP error status stands for.
    static func category(of status: HTTPResponse.Status) -> ErrorCategory {
        switch status.code {
        case 401: .unauthenticated
        case 403: .forbidden
        case 404: .notFound
        case 413: .tooLarge
        case 422: .unprocessable
        case 503: .unavailable
        case 507: .insufficientStorage
        case 400..<500: .invalidInput
        default: .internal
        }
    }
}
