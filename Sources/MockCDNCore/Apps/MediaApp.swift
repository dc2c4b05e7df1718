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

    /// Loads the app's keys. A key pair the configuration names without key material, or the one an app with
    /// no key pairs gets, is derived from the app's API secret (`derivedKey`): every process of the same
    /// configuration, the server and `mockcdn sign` alike, has the same key and key id, so links the CLI
    /// signs verify on the server without a shared file or a request.
    ///
    /// - Parameter configuration: the app.
    /// - Throws: `MockCDNError.invalidKeyMaterial` for unreadable PEM or no active private key.
    /// The key pair id an app without configured keys gets: `K` and 13 of A-Z 0-9, from its API secret.
    static func derivedKeyID(_ configuration: AppConfiguration) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let bytes = HMAC.sha256("mockcdn-cloudfront-key-id/" + configuration.appID, key: configuration.apiSecret)
        return "K" + String(bytes.prefix(13).map { alphabet[Int($0) % alphabet.count] })
    }

    /// The RSA-2048 key of pair `id`, derived from the app's API secret: as secret as that secret, which is
    /// what a mock needs and never what a real CDN key is.
    static func derivedKey(_ configuration: AppConfiguration, id: String) throws -> RSAKey {
        try RSAKey.derive(
            from: HMAC.sha256("mockcdn-cloudfront-key/" + configuration.appID + "/" + id, key: configuration.apiSecret)
        )
    }

    public init(_ configuration: AppConfiguration) throws {
        var pairs: [CloudFrontKeyPair] = []
        for pair in configuration.keyPairs {
            let key: RSAKey
            if let pem = pair.privateKeyPEM {
                key = try RSAKey(privateKeyPEM: pem)
            } else if let pem = pair.publicKeyPEM {
                key = try RSAKey(publicKeyPEM: pem)
            } else {
                key = try Self.derivedKey(configuration, id: pair.id)
            }
            pairs.append(CloudFrontKeyPair(id: pair.id, key: key, status: pair.status))
        }
        if pairs.isEmpty {
            let id = Self.derivedKeyID(configuration)
            pairs.append(CloudFrontKeyPair(id: id, key: try Self.derivedKey(configuration, id: id), status: .active))
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
    }

    public var id: String { self.configuration.appID }

    /// The key pair with `id`, whatever its status.
    public func keyPair(id: String) -> CloudFrontKeyPair? {
        self.keyPairs.first { $0.id == id }
    }

    /// The upload restrictions in force for `kind`.
    public func uploadConfig(_ kind: UploadPolicy.Kind) -> UploadConfig {
        self.uploadConfigs.withLock { kind == .image ? $0.image : $0.file }
    }

    /// Replaces the upload restrictions (`PATCH /app`); effective for the next request.
    public func setUploadConfig(_ config: UploadConfig, for kind: UploadPolicy.Kind) {
        self.uploadConfigs.withLock { configs in
            if kind == .image { configs.image = config } else { configs.file = config }
        }
    }

    /// Back to the configured restrictions (`/_mockcdn/reset`).
    public func resetUploadConfigs() {
        self.uploadConfigs.withLock { $0 = (self.configuration.fileUploadConfig, self.configuration.imageUploadConfig) }
    }
}

/// Every tenant, found by app id or API key.
public struct AppRegistry: Sendable {
    public let apps: [MediaApp]

    /// Loads every app.
    ///
    /// - Parameters:
    ///   - configurations: the apps; the first is the default app.
    ///   - reserved: first path segments that belong to the server's other routes, which no app id may be.
    /// - Throws: `MockCDNError.invalidKeyMaterial`, or `.invalidConfiguration` for duplicate ids or keys, or an
    ///   unusable app id or S3 region.
    public init(_ configurations: [AppConfiguration], reserving reserved: Set<String>) throws {
        guard !configurations.isEmpty else { throw MockCDNError.invalidConfiguration("at least one app is required") }
        guard Set(configurations.map(\.appID)).count == configurations.count,
            Set(configurations.map(\.apiKey)).count == configurations.count
        else { throw MockCDNError.invalidConfiguration("app ids and api keys must be unique") }
        for configuration in configurations {
            // An app id is the first segment of its media URLs, so it may not shadow another route or hold `/`.
            guard !reserved.contains(configuration.appID), !configuration.appID.isEmpty,
                configuration.appID.utf8.count <= 64,
                configuration.appID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            else {
                throw MockCDNError.invalidConfiguration(
                    "app id \"\(configuration.appID)\" must be 1-64 of A-Z a-z 0-9 - _ and not one of \(reserved.sorted())"
                )
            }
            guard AppConfiguration.isValidS3Region(configuration.s3Region) else {
                throw MockCDNError.invalidConfiguration(
                    "app \(configuration.appID): s3 region must be 1-32 of a-z 0-9 -"
                )
            }
        }
        self.apps = try configurations.map(MediaApp.init)
    }

    public func app(id: String) -> MediaApp? {
        self.apps.first { $0.id == id }
    }

    public func app(apiKey: String) -> MediaApp? {
        self.apps.first { $0.configuration.apiKey == apiKey }
    }
}

/// Channel membership: uploaders join the channel they upload to; a server token adds members.
public final class ChannelDirectory: Sendable {
    private let members = Mutex<[String: Set<String>]>([:])

    public init() {}

    private static func key(app: String, channel: String) -> String { app + "|" + channel }

    public func add(_ users: some Sequence<String>, app: String, channel: String) {
        self.members.withLock { $0[Self.key(app: app, channel: channel), default: []].formUnion(users) }
    }

    public func isMember(_ user: String, app: String, channel: String) -> Bool {
        self.members.withLock { $0[Self.key(app: app, channel: channel)]?.contains(user) ?? false }
    }

    public func removeAll() {
        self.members.withLock { $0.removeAll() }
    }
}
