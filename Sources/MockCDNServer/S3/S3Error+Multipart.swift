import HTTPTypes
import MockCDNCore

/// S3's refusals of multipart uploads, with its codes, texts and details.
extension S3Error {
    /// S3's smallest part, the last one aside: 5 MiB.
    static let minimumPartSize = 5 * 1024 * 1024

    /// 404: no such upload for that key (never created, aborted, completed, reset, or expired).
    static func noSuchUpload(_ id: String) -> S3Error {
        S3Error(
            status: .notFound,
            code: "NoSuchUpload",
            message: "The specified upload does not exist. The upload ID may be invalid, or the upload may have "
                + "been aborted or completed.",
            details: [("UploadId", id)]
        )
    }

    /// 409: the upload is being completed by another request.
    static func operationAborted() -> S3Error {
        S3Error(
            status: .conflict,
            code: "OperationAborted",
            message: "A conflicting conditional operation is currently in progress against this resource. Please "
                + "try again."
        )
    }

    /// 400: a completion names a part that was not uploaded, or with another ETag.
    static func invalidPart(upload: String, number: Int, etag: String) -> S3Error {
        S3Error(
            status: .badRequest,
            code: "InvalidPart",
            message: "One or more of the specified parts could not be found.  The part may not have been uploaded, "
                + "or the specified entity tag may not match the part's entity tag.",
            details: [("UploadId", upload), ("PartNumber", String(number)), ("ETag", etag)]
        )
    }

    /// 400: a completion's parts are not in ascending order of their numbers.
    static func invalidPartOrder(upload: String, number: Int, etag: String) -> S3Error {
        S3Error(
            status: .badRequest,
            code: "InvalidPartOrder",
            message: "The list of parts was not in ascending order. Parts must be ordered by part number.",
            details: [("UploadId", upload), ("PartNumber", String(number)), ("ETag", etag)]
        )
    }

    /// 400: a part other than the last is smaller than 5 MiB.
    static func entityTooSmall(size: Int, number: Int, etag: String) -> S3Error {
        S3Error(
            status: .badRequest,
            code: "EntityTooSmall",
            message: "Your proposed upload is smaller than the minimum allowed size",
            details: [
                ("ProposedSize", String(size)), ("MinSizeAllowed", String(Self.minimumPartSize)),
                ("PartNumber", String(number)), ("ETag", etag),
            ]
        )
    }

    /// 400: an XML document S3 cannot read as the one expected.
    static let malformedXML = S3Error(
        status: .badRequest,
        code: "MalformedXML",
        message: "The XML you provided was not well-formed or did not validate against our published schema"
    )

    /// 400 `MalformedXML` for a document `XMLReader` refused; the journal's reason says why.
    ///
    /// - Parameter refusal: why it was refused.
    /// - Returns: S3's error.
    static func malformedXML(because refusal: XMLRefusal) -> S3Error {
        var error = Self.malformedXML
        error.reason = refusal.description
        return error
    }
}
