import Foundation
import Hummingbird
import MockCDNCore
import NIOCore
import NIOHTTP1
import _NIOFileSystem

/// Any error, sorted into the categories every API answers: what a route group's envelope renders when a
/// handler throws something that is not already in that envelope.
struct Failure: Sendable {
    let category: MockCDNError.Category
    /// Safe to show: no path of the server's, no secret.
    let message: String

    init(category: MockCDNError.Category, message: String) {
        self.category = category
        self.message = message
    }

    /// Classifies an error from anywhere below a route.
    init(_ error: any Error) {
        switch error {
        case let error as MockCDNError:
            self.init(category: error.category, message: error.detail)
        case let failure as UploadFailure:
            switch failure {
            case .input(let message): self.init(category: .invalidInput, message: message)
            case .tooLarge(let limit):
                self.init(category: .tooLarge, message: "file is larger than the upload limit of \(limit) bytes")
            case .storage(let message): self.init(category: .unavailable, message: message)
            case .stalled(let seconds):
                self.init(category: .invalidInput, message: "no bytes arrived for \(seconds) s; nothing was stored")
            case .unavailable(let message, let status):
                self.init(category: status.code == 507 ? .insufficientStorage : .unavailable, message: message)
            }
        case let error as FileSystemError:
            // Disk full, an I/O error, a permission taken away: the store cannot keep or serve the object now.
            self.init(
                category: error.code == .unavailable ? .insufficientStorage : .unavailable,
                message: "the store cannot be used right now (\(error.code))"
            )
        case let error as HTTPError:
            self.init(category: Self.category(of: error.status), message: error.body ?? "\(error.status.reasonPhrase)")
        case let error as HTTPParserError:
            // The body's framing broke mid-request (a bad chunk size, a chunk longer than announced, a missing
            // CRLF): the client's fault, and nothing of the body is kept.
            self.init(category: .invalidInput, message: "malformed request body framing (\(error))")
        case is CancellationError:
            self.init(category: .unavailable, message: "the request was cancelled")
        case is DecodingError:
            self.init(category: .invalidInput, message: "the request body is not the JSON expected")
        default:
            self.init(category: .internal, message: "internal error")
        }
    }

    /// The HTTP status of the category.
    var status: HTTPResponse.Status {
        switch self.category {
        case .invalidInput: .badRequest
        case .unauthenticated: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .tooLarge: .contentTooLarge
        case .unprocessable: HTTPResponse.Status(code: 422)
        case .unavailable: .serviceUnavailable
        case .insufficientStorage: HTTPResponse.Status(code: 507)
        case .internal: .internalServerError
        }
    }

    private static func category(of status: HTTPResponse.Status) -> MockCDNError.Category {
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

/// Renders every error a route group throws in that group's envelope (S3 XML, Stream JSON, CometChat JSON,
/// the control routes' JSON): handlers just `try`, and no error leaves a group in another shape, nor as
/// Hummingbird's bare 500.
struct ErrorEnvelopeMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// Whether an error is already in the group's envelope.
    let isEnvelope: @Sendable (any Error) -> Bool
    /// The group's envelope for any other error.
    let render: @Sendable (Failure) -> any Error

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let noted as NotedError {
            // The credential's note stays on the rendered error, for the journal.
            throw NotedError(credential: noted.credential, error: self.rendered(noted.error))
        } catch {
            throw self.rendered(error)
        }
    }

    private func rendered(_ error: any Error) -> any Error {
        self.isEnvelope(error) ? error : self.render(Failure(error))
    }

    /// S3 XML, for media reads.
    static let media = ErrorEnvelopeMiddleware(isEnvelope: { $0 is S3Error }, render: S3Error.init)
    /// Stream's JSON.
    static let stream = ErrorEnvelopeMiddleware(isEnvelope: { $0 is StreamAPIError }, render: StreamAPIError.init)
    /// CometChat's JSON.
    static let cometChat = ErrorEnvelopeMiddleware(isEnvelope: { $0 is CometChatError }, render: CometChatError.init)
    /// The control routes' JSON (`{"error":{"message"}}`, Hummingbird's shape, which their clients read).
    static let control = ErrorEnvelopeMiddleware(
        isEnvelope: { $0 is HTTPError },
        render: { failure in HTTPError(failure.status, message: failure.message) }
    )
}

extension Response {
    /// A JSON error envelope (Stream's, CometChat's): keys sorted, slashes as they are.
    static func jsonEnvelope(_ body: [String: Any], status: HTTPResponse.Status) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
