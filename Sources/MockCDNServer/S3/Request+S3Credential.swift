import Hummingbird
import MockCDNCore

extension Request {
    /// Whether the request offers S3's credentials (not yet checked): SigV4 or SigV2 in its `Authorization`
    /// header, or a SigV4 or SigV2 presigned query. Such a request is S3's, and addresses any key S3 takes.
    ///
    /// - Parameter query: the request's query.
    /// - Returns: true when one of them is there.
    func offersS3Credential(query: QueryItems) -> Bool {
        let authorization = self.headers[.authorization]
        return SigV4.isHeaderSigned(authorization) || SigV2.isHeaderSigned(authorization)
            || SigV4.isPresent(in: query.decoded) || query.first("AWSAccessKeyId") != nil
    }
}
