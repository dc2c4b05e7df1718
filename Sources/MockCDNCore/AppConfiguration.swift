/// A tenant as configured: identity, credentials, region, signing keys, upload settings, link lifetimes.
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
    public var region: String
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

    public init(
        appID: String,
        apiKey: String,
        apiSecret: String,
        region: String,
        keyPairs: [KeyPair] = [],
        fileUploadConfig: UploadConfig = UploadConfig(),
        imageUploadConfig: UploadConfig = UploadConfig(),
        linkTTL: Int64 = 14 * 24 * 3600,
        presignTTL: Int64 = 300,
        maximumSourcePixels: Int = VariantRenderer.defaultMaximumPixels,
        inlineActiveContent: Bool = false
    ) {
        self.appID = appID
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.region = region
        self.keyPairs = keyPairs
        self.fileUploadConfig = fileUploadConfig
        self.imageUploadConfig = imageUploadConfig
        self.linkTTL = linkTTL
        self.presignTTL = presignTTL
        self.maximumSourcePixels = maximumSourcePixels
        self.inlineActiveContent = inlineActiveContent
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
