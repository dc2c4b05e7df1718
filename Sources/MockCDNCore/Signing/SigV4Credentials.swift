/// The identity SigV4 signs with: for MockCDN, an app's API key and secret, its S3 region (`s3_region`,
/// default `us-east-1`) and service `s3`.
public struct SigV4Credentials: Sendable {
    public let accessKeyID: String
    public let secretAccessKey: String
    public let region: String
    public let service: String

    public init(accessKeyID: String, secretAccessKey: String, region: String, service: String = "s3") {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.region = region
        self.service = service
    }
}
