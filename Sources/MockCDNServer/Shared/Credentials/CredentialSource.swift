/// Where a request's credential came from; the request journal records this, never the credential.
enum CredentialSource: String, Sendable, CaseIterable {
    case fatHeader = "fat-header"
    case fatQuery = "fat-query"
    /// A SigV4 presigned query.
    case presigned
    /// A SigV2 presigned query (`AWSAccessKeyId`, `Expires`, `Signature`).
    case presignedV2 = "presigned-v2"
    /// SigV4 in the `Authorization` header, as S3 clients sign by default.
    case headerSigV4 = "s3-header-sigv4"
    /// SigV2 in the `Authorization` header (`AWS AccessKeyId:Signature`), boto3's `signature_version="s3"`.
    case headerSigV2 = "s3-header-sigv2"
    /// An S3 POST policy form (SigV4 or SigV2), as boto3's `generate_presigned_post` and a browser send it.
    case postPolicy = "s3-post-policy"
    case cloudfront
    /// CloudFront signed cookies (`CloudFront-Signature`, ...).
    case cloudfrontCookie = "cloudfront-cookie"
    case jwt
    case none
}

extension CredentialSource {
    /// Whether the credential is S3's (signed with the app's S3 keys): such a request addresses any key S3
    /// takes, where links, FATs and CloudFront address media paths only (`ObjectKey.isMediaPath`).
    var addressesAnyKey: Bool {
        switch self {
        case .presigned, .presignedV2, .headerSigV4, .headerSigV2, .postPolicy: true
        case .fatHeader, .fatQuery, .cloudfront, .cloudfrontCookie, .jwt, .none: false
        }
    }
}
