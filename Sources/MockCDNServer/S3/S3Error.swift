import Foundation
import Hummingbird
import MockCDNCore

/// An error on a media read, rendered as S3/CloudFront XML: `<Error><Code>..</Code><Message>..</Message>..`.
struct S3Error: ErrorEnvelope, ExplainedRefusal {
    let status: HTTPResponse.Status
    let code: String
    let message: String
    /// Extra elements after Message, in order (e.g. S3's `Expires` and `ServerTime`).
    var details: [(String, String)] = []
    var headers: HTTPFields = [:]
    /// The expiry of a credential refused for being past it (`ExplainedRefusal.expiredAt`).
    var expiredAt: Int64? = nil
    /// What the journal adds to the code and message (why a document was `MalformedXML`); never in the body.
    var reason: String? = nil

    static func missingCredential() -> S3Error {
        S3Error(
            status: .unauthorized,
            code: "AccessDenied",
            message:
                "No credential: send a FAT (fat header or query), an S3 presigned query (SigV4 or SigV2) or a "
                + "CloudFront signature"
        )
    }

    /// 403 with the code, message and details of the rule that failed; 400 when S3 answers 400 (a credential
    /// scoped to another region).
    static func accessDenied(_ denial: AccessDenied) -> S3Error {
        S3Error(
            status: denial.kind == .malformed ? .badRequest : .forbidden,
            code: denial.code,
            message: denial.message,
            details: denial.details.map { ($0.name, $0.value) },
            expiredAt: denial.expiredAt
        )
    }

    static func noSuchKey() -> S3Error {
        S3Error(status: .notFound, code: "NoSuchKey", message: "The specified key does not exist.")
    }

    static func noSuchApp() -> S3Error {
        S3Error(status: .notFound, code: "NoSuchBucket", message: "The specified app does not exist.")
    }

    static func invalidURI(_ message: String) -> S3Error {
        S3Error(status: .badRequest, code: "InvalidURI", message: message)
    }

    /// 412: a conditional read or write whose condition does not hold, as S3 words it.
    static func preconditionFailed(condition: String) -> S3Error {
        S3Error(
            status: .preconditionFailed,
            code: "PreconditionFailed",
            message: "At least one of the pre-conditions you specified did not hold",
            details: [("Condition", condition)]
        )
    }

    static func invalidRange(size: Int) -> S3Error {
        S3Error(
            status: .rangeNotSatisfiable,
            code: "InvalidRange",
            message: "The requested range is not satisfiable",
            headers: [.contentRange: "bytes */\(size)"]
        )
    }

    /// The `<Error>` element, without the XML declaration.
    ///
    /// - Parameter requestID: the request's id, as `RequestId` (and, from it, `HostId`).
    func document(requestID: String) -> String {
        var xml = "<Error><Code>\(XMLText.escaped(self.code))</Code>"
        xml += "<Message>\(XMLText.escaped(self.message))</Message>"
        for (name, value) in self.details { xml += "<\(name)>\(XMLText.escaped(value))</\(name)>" }
        xml += "<RequestId>\(XMLText.escaped(requestID))</RequestId>"
        xml += "<HostId>\(XMLText.escaped(AmzRequestID.hostID(of: requestID)))</HostId></Error>"
        return xml
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let xml = S3XML.declaration + self.document(requestID: context.id)
        var headers = self.headers
        headers[.contentType] = "application/xml"
        // Wherever the refusal is rendered (a route group, S3's dispatch before any route), its identifiers go
        // with it, as on S3.
        AmzRequestID.mark(&headers, id: context.id)
        // HEAD answers carry no body, but the same status and headers.
        let body = request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: xml))
        return Response(status: self.status, headers: headers, body: body)
    }

}

extension S3Error {
    /// A transform that cannot be served: 400 for a request wrong for this object, 422 for a source over the
    /// pixel bound or one libvips cannot process.
    init(_ refusal: TransformRefusal) {
        switch refusal.kind {
        case .invalid: self.init(status: .badRequest, code: "InvalidArgument", message: refusal.message)
        case .tooManyPixels: self.init(status: .unprocessableContent, code: "ImageTooLarge", message: refusal.message)
        case .unprocessable: self.init(status: .unprocessableContent, code: "InvalidImage", message: refusal.message)
        }
    }
}

extension S3Error {
    var publicMessage: String { self.message }

    var explanation: String { self.code + ": " + self.message + (self.reason.map { " (\($0))" } ?? "") }

    /// S3's own words for a refused credential, a transform it cannot serve, and a key that is no key.
    static func specific(_ error: any Error) -> S3Error? {
        switch error {
        case let denial as AccessDenied: .accessDenied(denial)
        case let refusal as SignatureRefusal: .accessDenied(refusal.denial)
        case let refusal as TransformRefusal: S3Error(refusal)
        case let error as MockCDNError where error == .invalidObjectKey: .invalidURI(error.detail)
        case let error as MockCDNError where error == .keyTooLong:
            S3Error(
                status: .badRequest,
                code: "KeyTooLongError",
                message: error.detail,
                details: [("MaxSizeAllowed", String(ObjectKey.maximumLength))]
            )
        case let failure as UploadFailure: .upload(failure)
        case let refusal as AWSChunkedError: .chunked(refusal)
        case let refusal as ChecksumError: S3Error(status: .badRequest, code: refusal.code, message: refusal.message)
        case let refusal as PostPolicyRefusal:
            S3Error(
                status: refusal.kind == .forbidden ? .forbidden : .badRequest,
                code: refusal.code,
                message: refusal.message,
                details: refusal.details.map { ($0.name, $0.value) },
                expiredAt: refusal.expiredAt
            )
        default: nil
        }
    }

    /// An aws-chunked body that breaks a rule, with the status S3 gives that rule.
    static func chunked(_ refusal: AWSChunkedError) -> S3Error {
        let status: HTTPResponse.Status =
            switch refusal.kind {
            case .malformed: .badRequest
            case .forbidden: .forbidden
            case .lengthRequired: .lengthRequired
            case .notImplemented: HTTPResponse.Status(code: 501)
            }
        return S3Error(
            status: status,
            code: refusal.code,
            message: refusal.message,
            details: refusal.details.map { ($0.name, $0.value) }
        )
    }

    /// S3's words for an upload it refuses: 400 `EntityTooLarge` past the size limit, 400 `RequestTimeout`
    /// for a body that stopped. MockCDN's upload policy adds a refusal S3 does not have: a type or extension
    /// the app does not take, 415 `UnsupportedMediaType`.
    static func upload(_ failure: UploadFailure) -> S3Error? {
        switch failure {
        case .tooLarge(let limit):
            S3Error(
                status: .badRequest,
                code: "EntityTooLarge",
                message: "Your proposed upload exceeds the maximum allowed size",
                details: [("MaxSizeAllowed", String(limit))]
            )
        case .refused(let message):
            S3Error(status: .unsupportedMediaType, code: "UnsupportedMediaType", message: message)
        case .stalled:
            S3Error(
                status: .badRequest,
                code: "RequestTimeout",
                message: "Your socket connection to the server was not read from or written to within the timeout "
                    + "period. Idle connections will be closed."
            )
        case .input, .storage, .unavailable: nil
        }
    }

    /// Any other failure, with S3's code for its category.
    init(_ failure: Failure) {
        let code =
            switch failure.category {
            case .invalidInput: "InvalidArgument"
            case .unauthenticated, .forbidden: "AccessDenied"
            case .notFound: "NoSuchKey"
            case .tooLarge: "EntityTooLarge"
            case .unprocessable: "InvalidImage"
            case .unavailable: "ServiceUnavailable"
            case .insufficientStorage: "InsufficientStorage"
            case .internal: "InternalError"
            }
        self.init(status: failure.status, code: code, message: failure.message)
    }
}
