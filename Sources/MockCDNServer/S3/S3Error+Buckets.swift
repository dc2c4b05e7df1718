import HTTPTypes

extension S3Error {
    /// 409: a bucket of that name is another app's (or the name is one of MockCDN's own routes).
    static func bucketAlreadyExists(_ name: String) -> S3Error {
        S3Error(
            status: .conflict,
            code: "BucketAlreadyExists",
            message: "The requested bucket name is not available. The bucket namespace is shared by all users of "
                + "the system. Please select a different name and try again.",
            details: [("BucketName", name)]
        )
    }

    /// 409: the key's app already owns the bucket, outside `us-east-1` (where S3 answers 200 instead).
    static func bucketAlreadyOwnedByYou(_ name: String) -> S3Error {
        S3Error(
            status: .conflict,
            code: "BucketAlreadyOwnedByYou",
            message: "Your previous request to create the named bucket succeeded and you already own it.",
            details: [("BucketName", name)]
        )
    }

    /// 400: a name S3's naming rules refuse.
    static func invalidBucketName(_ name: String, _ problem: String) -> S3Error {
        S3Error(
            status: .badRequest,
            code: "InvalidBucketName",
            message: "The specified bucket is not valid: \(problem)",
            details: [("BucketName", name)]
        )
    }
}
