import MockCDNCore

/// Where an S3 store lives and how to reach it: `s3://BUCKET[/PREFIX]` plus the AWS conventions for the
/// endpoint, the credentials and the region.
public struct S3Location: Sendable, Equatable {
    public var bucket: String
    /// Every key MockCDN writes starts with it: empty, or ending in `/`.
    public var prefix: String
    /// `http(s)://host[:port]`, without a path.
    public var endpoint: String
    public var region: String
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?
    /// `https://endpoint/BUCKET/key` instead of `https://BUCKET.endpoint/key`.
    public var pathStyle: Bool

    /// Reads `s3://BUCKET[/PREFIX]` and the environment as the AWS tools do.
    ///
    /// - Endpoint: `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`, else `https://s3.REGION.amazonaws.com`.
    /// - Credentials: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`.
    /// - Region: `AWS_REGION`, else `AWS_DEFAULT_REGION`, else `us-east-1`.
    /// - Addressing: `pathStyle`; by default path-style for a custom endpoint (SeaweedFS, Garage, moto_server
    ///   and most others expect it) and for a bucket name with dots, virtual-hosted for AWS.
    ///
    /// - Parameters:
    ///   - url: `s3://BUCKET` or `s3://BUCKET/PREFIX`.
    ///   - environment: the process environment.
    ///   - pathStyle: true or false to choose the addressing; nil for the default above.
    /// - Throws: `MockCDNError.invalidConfiguration` naming what is wrong; never echoes a secret.
    public init(_ url: String, environment: [String: String], pathStyle: Bool? = nil) throws(MockCDNError) {
        guard url.hasPrefix("s3://") else {
            throw .invalidConfiguration("store \"\(url)\" is not s3://BUCKET[/PREFIX]")
        }
        let rest = url.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        // S3's bucket naming rules: 3-63 of a-z 0-9 . -, starting and ending with a letter or digit.
        if let problem = BucketName.problem(bucket) {
            throw .invalidConfiguration("s3 bucket \"\(bucket)\" breaks S3's naming rules: \(problem)")
        }
        var prefix = String(rest.dropFirst(bucket.count).drop { $0 == "/" })
        if !prefix.isEmpty, !prefix.hasSuffix("/") { prefix += "/" }
        guard prefix.utf8.count <= 256, !prefix.split(separator: "/").contains(where: { $0 == ".." || $0 == "." })
        else { throw .invalidConfiguration("s3 prefix must be at most 256 bytes, without . or .. segments") }

        let region = environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
        guard AppConfiguration.isValidS3Region(region) else {
            throw .invalidConfiguration("AWS_REGION must be 1-32 of a-z 0-9 -")
        }
        let custom = environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"]
        var endpoint = custom ?? "https://s3.\(region).amazonaws.com"
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
        guard endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://"),
            !endpoint.drop(while: { $0 != ":" }).dropFirst(3).contains("/")
        else { throw .invalidConfiguration("the S3 endpoint must be http(s)://host[:port], without a path") }
        guard let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty,
            let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
        else {
            throw .invalidConfiguration("an s3:// store needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        self.bucket = bucket
        self.prefix = prefix
        self.endpoint = endpoint
        self.region = region
        self.accessKeyID = key
        self.secretAccessKey = secret
        self.sessionToken = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        self.pathStyle = pathStyle ?? (custom != nil || bucket.contains("."))
    }

    /// `s3://BUCKET/PREFIX`, for health and logs (no credentials).
    public var description: String { "s3://\(self.bucket)/\(self.prefix)" }

    var credentials: SigV4Credentials {
        SigV4Credentials(accessKeyID: self.accessKeyID, secretAccessKey: self.secretAccessKey, region: self.region)
    }

    /// The scheme and authority requests go to, and the path of `key` (not encoded) under it.
    func target(key: String) -> (origin: String, host: String, path: String) {
        let scheme = self.endpoint.hasPrefix("https://") ? "https://" : "http://"
        let authority = String(self.endpoint.dropFirst(scheme.count))
        if self.pathStyle {
            return (self.endpoint, authority, "/" + self.bucket + "/" + key)
        }
        return (scheme + self.bucket + "." + authority, self.bucket + "." + authority, "/" + key)
    }
}
