/// A tenant as configured: identity, credentials, regions, signing keys, upload settings, link lifetimes.
public struct AppConfiguration: Sendable, Equatable {
    /// A CloudFront key pair as configured: PEM text, or nothing to have one generated at start.
    public struct KeyPair: Sendable, Equatable {
        public var id: String
        public var status: CloudFrontKeyPair.Status
        /// Signs (and verifies). Required for the active key unless `publicKeyPEM` alone is meant to verify.
        public var privateKeyPEM: String?
        /// Verifies only; used when there is no private key.
        public var publicKeyPEM: String?

        public init(
            id: String,
            status: CloudFrontKeyPair.Status,
            privateKeyPEM: String? = nil,
            publicKeyPEM: String? = nil
        ) {
            self.id = id
            self.status = status
            self.privateKeyPEM = privateKeyPEM
            self.publicKeyPEM = publicKeyPEM
        }
    }

    public var appID: String
    public var apiKey: String
    public var apiSecret: String
    /// The CometChat region (`us`, `eu`, ...), as CometChat's own apps have one; S3 signing does not use it.
    public var region: String
    /// The region S3 presigned URLs are scoped to (`X-Amz-Credential` `.../{s3Region}/s3/aws4_request`).
    /// Separate from `region` because AWS tooling knows only AWS region names: boto3 and awscli with no
    /// region configured sign for `us-east-1`, and a CometChat `us` is no region they can be given.
    public var s3Region: String
    /// Empty: one active RSA-2048 key pair is generated at start.
    public var keyPairs: [KeyPair]
    public var fileUploadConfig: UploadConfig
    public var imageUploadConfig: UploadConfig
    /// Lifetime of the CloudFront links MockCDN issues, in seconds (Stream: 14 days).
    public var linkTTL: Int64
    /// Lifetime of the SigV4 presigned URLs `POST /v1/apps/{app}/presign` issues, in seconds (CometChat:
    /// about 5 minutes).
    public var presignTTL: Int64
    /// Sources above this many pixels (width x height x frames) are not resized (Stream: 16.8 million).
    public var maximumSourcePixels: Int
    /// Serve HTML, SVG, XML and JavaScript inline, without the sandbox and attachment headers that keep
    /// uploaded files from running script on MockCDN's origin. Off unless an app opts in.
    public var inlineActiveContent: Bool
    /// How the CometChat media URLs MockCDN hands out are authorised (CometChat's dashboard setting).
    public var mediaURLAccess: MediaURLAccess
    /// Lifetime of the CloudFront canned links handed out with `mediaURLAccess` `.presigned`, in seconds.
    public var presignedURLTTL: Int64
    /// Lifetime of the upload URLs `POST /v1/apps/{app}/uploads` hands out, in seconds (CometChat: 15 minutes).
    public var uploadURLTTL: Int64
    /// Seconds a presigned PUT may go without receiving a byte before it fails as stalled (CometChat: 30).
    public var uploadStallTimeout: Int64
    /// The largest object an S3-addressed write (PutObject, a completed multipart upload, a POST form) may
    /// make, in bytes, for a backend that keeps larger media in its bucket than its users may upload. Nil:
    /// the app's upload policy for the key's kind, as for Stream's and CometChat's uploads.
    public var s3SizeLimit: Int?

    /// CometChat's two media URL modes.
    public enum MediaURLAccess: String, Sendable, Equatable, CaseIterable {
        /// Plain media URLs; a read needs a File Access Token (header or query). The default.
        case fat
        /// Media URLs are CloudFront canned links that expire after `presignedURLTTL`.
        case presigned
    }

    /// The bounds of `presignedURLTTL` CometChat documents: 15 minutes to 1 month (30 days).
    public static let presignedURLTTLRange: ClosedRange<Int64> = 900...2_592_000
    /// CometChat's default: 1 day.
    public static let defaultPresignedURLTTL: Int64 = 86_400
    /// The bounds of `uploadURLTTL`: a minute to S3's longest presigned lifetime, a week.
    public static let uploadURLTTLRange: ClosedRange<Int64> = 60...SigV4.maximumExpires
    public static let defaultUploadURLTTL: Int64 = 900
    /// The bounds of `uploadStallTimeout`: a second to an hour.
    public static let uploadStallTimeoutRange: ClosedRange<Int64> = 1...3600
    public static let defaultUploadStallTimeout: Int64 = 30
    /// The bounds of `s3SizeLimit`: a byte to S3's largest object, 5 TiB.
    public static let s3SizeLimitRange: ClosedRange<Int> = 1...(5 << 40)
    /// The most files one request for upload URLs may name (CometChat: 10 per upload group).
    public static let maximumUploadFiles = 10

    public init(
        appID: String,
        apiKey: String,
        apiSecret: String,
        region: String,
        s3Region: String = AppConfiguration.defaultS3Region,
        keyPairs: [KeyPair] = [],
        fileUploadConfig: UploadConfig = UploadConfig(),
        imageUploadConfig: UploadConfig = UploadConfig(),
        linkTTL: Int64 = 14 * 24 * 3600,
        presignTTL: Int64 = 300,
        maximumSourcePixels: Int = VariantRenderer.defaultMaximumPixels,
        inlineActiveContent: Bool = false,
        mediaURLAccess: MediaURLAccess = .fat,
        presignedURLTTL: Int64 = AppConfiguration.defaultPresignedURLTTL,
        uploadURLTTL: Int64 = AppConfiguration.defaultUploadURLTTL,
        uploadStallTimeout: Int64 = AppConfiguration.defaultUploadStallTimeout
    ) {
        self.appID = appID
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.region = region
        self.s3Region = s3Region
        self.keyPairs = keyPairs
        self.fileUploadConfig = fileUploadConfig
        self.imageUploadConfig = imageUploadConfig
        self.linkTTL = linkTTL
        self.presignTTL = presignTTL
        self.maximumSourcePixels = maximumSourcePixels
        self.inlineActiveContent = inlineActiveContent
        self.mediaURLAccess = mediaURLAccess
        self.presignedURLTTL = presignedURLTTL
        self.uploadURLTTL = uploadURLTTL
        self.uploadStallTimeout = uploadStallTimeout
    }

    /// The S3 region of an app that names none: the one boto3 and awscli sign for when they have no region.
    public static let defaultS3Region = "us-east-1"

    /// Whether `region` can be an S3 signing region: 1-32 of `a-z 0-9 -`, as AWS region names are. Anything
    /// else could never match a credential scope, and would end up in error messages.
    ///
    /// - Parameter region: the configured value.
    /// - Returns: true when it is usable.
    public static func isValidS3Region(_ region: String) -> Bool {
        !region.isEmpty && region.utf8.count <= 32
            && region.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 }
    }

    /// The app that exists unless the configuration replaces it. Its secret and key pair are published on
    /// purpose (the secret is 32+ bytes so JWT libraries do not warn), like LocalStack's `test`/`test`.
    public static let demo = AppConfiguration(
        appID: "demo",
        apiKey: "demo-key",
        apiSecret: "demo-secret-for-local-testing-only",
        region: "us",
        keyPairs: [
            KeyPair(
                id: DevelopmentKeys.demoKeyPairID,
                status: .active,
                privateKeyPEM: DevelopmentKeys.demoPrivateKeyPEM,
                publicKeyPEM: DevelopmentKeys.demoPublicKeyPEM
            )
        ]
    )
}
