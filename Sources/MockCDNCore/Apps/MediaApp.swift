import Foundation
import Synchronization

/// A tenant at run time: its configuration with keys loaded, and settings `PATCH /app` can change.
public final class MediaApp: Sendable {
    public let configuration: AppConfiguration
    /// The API secret, prepared for HMAC (JWTs, FATs).
    public let secretKey: HMACKey
    /// Signs new links.
    public let activeKeyPair: CloudFrontKeyPair
    public let keyPairs: [CloudFrontKeyPair]
    /// The API key and secret as SigV4 credentials in the app's S3 region (presigned URLs); SigV2 uses the
    /// same key and secret, without a region.
    public let sigV4Credentials: SigV4Credentials
    private let uploadConfigs: Mutex<(file: UploadConfig, image: UploadConfig)>
    /// The configured app whose keys created this bucket at run time (S3's CreateBucket); nil for an app of
    /// the configuration. Such a bucket has the owner's keys, region, upload settings and link signing.
    public let owner: MediaApp?
    /// When the bucket was created, for S3's listing of buckets: the start of the server for a configured app.
    public let created: Date

    /// The key pair id an app without configured keys gets: `K` and 13 of A-Z 0-9, from its API secret.
    static func derivedKeyID(_ configuration: AppConfiguration) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let bytes = HMAC.sha256("mockcdn-cloudfront-key-id/" + configuration.appID, key: configuration.apiSecret)
        return "K" + String(bytes.prefix(13).map { alphabet[Int($0) % alphabet.count] })
    }

    /// The RSA-2048 key of pair `id`, derived from the app's API secret: as secret as that secret, which is
    /// what a mock needs and never what a real CDN key is.
    static func derivedKey(_ configuration: AppConfiguration, id: String) -> RSAKey {
        RSAKey.derive(
            from: HMAC.sha256("mockcdn-cloudfront-key/" + configuration.appID + "/" + id, key: configuration.apiSecret)
        )
    }

    /// Loads the app's keys. A key pair the configuration names without key material, or the one an app with
    /// no key pairs gets, is derived from the app's API secret (`derivedKey`): every process of the same
    /// configuration, the server and `mockcdn sign` alike, has the same key and key id, so links the CLI
    /// signs verify on the server without a shared file or a request.
    ///
    /// - Parameter configuration: the app.
    /// - Throws: `MockCDNError.invalidKeyMaterial` for PEM that holds no RSA or ECDSA P-256 key, naming the
    ///   app and the pair, or no active private key.
    public init(_ configuration: AppConfiguration) throws {
        var pairs: [CloudFrontKeyPair] = []
        for pair in configuration.keyPairs {
            let key: CloudFrontKey
            do {
                if let pem = pair.privateKeyPEM {
                    key = try CloudFrontKey(privateKeyPEM: pem)
                } else if let pem = pair.publicKeyPEM {
                    key = try CloudFrontKey(publicKeyPEM: pem)
                } else {
                    key = .rsa(Self.derivedKey(configuration, id: pair.id))
                }
            } catch let error as MockCDNError where error == .invalidKeyMaterial {
                // The reason names the app and pair, never the PEM text (it may be a private key).
                throw MockCDNError.invalidKeyMaterial(
                    "app \(configuration.appID): key \(pair.id): \(error.detail) "
                        + "(CloudFront takes RSA-2048 and ECDSA P-256 keys)"
                )
            }
            pairs.append(CloudFrontKeyPair(id: pair.id, key: key, status: pair.status))
        }
        if pairs.isEmpty {
            let id = Self.derivedKeyID(configuration)
            pairs.append(
                CloudFrontKeyPair(id: id, key: .rsa(Self.derivedKey(configuration, id: id)), status: .active)
            )
        }
        let active = pairs.filter { $0.status == .active }
        guard active.count == 1, active[0].key.isPrivate else {
            throw MockCDNError.invalidKeyMaterial(
                "app \(configuration.appID) needs exactly one active key pair with a private key"
            )
        }
        self.configuration = configuration
        self.secretKey = HMACKey(configuration.apiSecret)
        self.activeKeyPair = active[0]
        self.keyPairs = pairs
        self.sigV4Credentials = SigV4Credentials(
            accessKeyID: configuration.apiKey,
            secretAccessKey: configuration.apiSecret,
            region: configuration.s3Region
        )
        self.uploadConfigs = Mutex((configuration.fileUploadConfig, configuration.imageUploadConfig))
        self.owner = nil
        self.created = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }

    /// A bucket created at run time by `owner`'s keys: an app named `name` with the owner's loaded keys, so
    /// its links, FATs and S3 signatures are the owner's.
    ///
    /// - Parameters:
    ///   - name: the bucket's name.
    ///   - owner: a configured app.
    ///   - created: when it was created.
    public init(bucket name: String, of owner: MediaApp, created: Date) {
        let owner = owner.account
        var configuration = owner.configuration
        configuration.appID = name
        self.configuration = configuration
        self.secretKey = owner.secretKey
        self.activeKeyPair = owner.activeKeyPair
        self.keyPairs = owner.keyPairs
        self.sigV4Credentials = owner.sigV4Credentials
        self.uploadConfigs = Mutex((configuration.fileUploadConfig, configuration.imageUploadConfig))
        self.owner = owner
        self.created = created
    }

    /// The configured app this one is: itself, or the owner of a bucket created at run time. Credentials are
    /// the account's: a FAT names it, and channel members and upload settings are kept under it.
    public var account: MediaApp { self.owner ?? self }

    public var id: String { self.configuration.appID }

    /// The key pair with `id`, whatever its status.
    public func keyPair(id: String) -> CloudFrontKeyPair? {
        self.keyPairs.first { $0.id == id }
    }

    /// The upload restrictions in force for `kind`.
    public func uploadConfig(_ kind: UploadPolicy.Kind) -> UploadConfig {
        if let owner { return owner.uploadConfig(kind) }
        return self.uploadConfigs.withLock { kind == .image ? $0.image : $0.file }
    }

    /// Replaces the upload restrictions (`PATCH /app`); effective for the next request.
    public func setUploadConfig(_ config: UploadConfig, for kind: UploadPolicy.Kind) {
        if let owner { return owner.setUploadConfig(config, for: kind) }
        self.uploadConfigs.withLock { configs in
            if kind == .image { configs.image = config } else { configs.file = config }
        }
    }

    /// Back to the configured restrictions (`/_mockcdn/reset`).
    public func resetUploadConfigs() {
        self.uploadConfigs.withLock { $0 = (self.configuration.fileUploadConfig, self.configuration.imageUploadConfig) }
    }
}
