import HTTPTypes

extension S3Error {
    /// 405: a method S3 does not take on that resource, as S3 words it.
    static func methodNotAllowed(_ method: HTTPRequest.Method, onBucket: Bool) -> S3Error {
        S3Error(
            status: .methodNotAllowed,
            code: "MethodNotAllowed",
            message: "The specified method is not allowed against this resource.",
            details: [("Method", method.rawValue), ("ResourceType", onBucket ? "BUCKET" : "OBJECT")]
        )
    }

    /// 501: an S3 operation MockCDN does not do, named.
    static func notImplemented(_ operation: S3Operation, subresource: String?) -> S3Error {
        let request = "\(operation.method.rawValue) \(operation.target.path)" + (subresource.map { "?" + $0 } ?? "")
        return S3Error(
            status: HTTPResponse.Status(code: 501),
            code: "NotImplemented",
            message: "A header you provided implies functionality that is not implemented: MockCDN does not "
                + "serve \(operation.names.joined(separator: " or ")) (\(request)); docs/s3-api.md lists what it serves",
            details: [("Operation", operation.names[0])]
        )
    }

    /// 501: a query parameter without a value that names no sub-resource S3 has.
    static func unknownSubresource(_ name: String) -> S3Error {
        S3Error(
            status: HTTPResponse.Status(code: 501),
            code: "NotImplemented",
            message: "A header you provided implies functionality that is not implemented: MockCDN does not "
                + "know the sub-resource ?\(name)"
        )
    }

    /// 501: a request signed for another service than S3's (S3 Express One Zone's `s3express`).
    static func unknownService(_ service: String) -> S3Error {
        S3Error(
            status: HTTPResponse.Status(code: 501),
            code: "NotImplemented",
            message: "A header you provided implies functionality that is not implemented: MockCDN serves S3 "
                + "(signed for s3), not \(service)"
        )
    }

    /// 400: a version id; MockCDN keeps no versions, as a bucket that never had versioning, whose only version
    /// id is `null`.
    static func invalidVersionID(_ version: String) -> S3Error {
        S3Error(
            status: .badRequest,
            code: "InvalidArgument",
            message: "Invalid version id specified",
            details: [("ArgumentName", "versionId"), ("ArgumentValue", version)]
        )
    }
}

extension S3Operation.Target {
    /// The path S3 addresses, as `docs/s3-api.md` writes it.
    var path: String {
        switch self {
        case .service: "/"
        case .bucket: "/{bucket}"
        case .object: "/{bucket}/{key}"
        case .objectLambda: "/WriteGetObjectResponse"
        }
    }
}
