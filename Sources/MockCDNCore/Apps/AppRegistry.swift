/// Every tenant, found by app id or API key.
public struct AppRegistry: Sendable {
    /// The apps of the configuration; the first is the default app.
    public let apps: [MediaApp]
    /// The buckets created at run time, each an app for S3 and the CDN (`app(id:)`), but never for the
    /// vendors' routes (`configuredApp(id:)`).
    public let buckets: BucketRegistry

    /// Loads every app.
    ///
    /// - Parameters:
    ///   - configurations: the apps; the first is the default app.
    ///   - reserved: first path segments that belong to the server's other routes, which no app id may be.
    ///   - buckets: the buckets created at run time; in memory when not given.
    /// - Throws: `MockCDNError.invalidKeyMaterial`, or `.invalidConfiguration` for duplicate ids or keys, or an
    ///   unusable app id or S3 region.
    public init(
        _ configurations: [AppConfiguration],
        reserving reserved: Set<String>,
        buckets: BucketRegistry? = nil
    ) throws {
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
        self.buckets = try buckets ?? BucketRegistry(directory: LocalBucketDirectory())
    }

    /// The app or created bucket `id` names: what S3 calls a bucket, and the CDN reads from.
    public func app(id: String) -> MediaApp? {
        self.configuredApp(id: id) ?? self.buckets.bucket(named: id)
    }

    /// The app of the configuration `id` names: what Stream's and CometChat's routes, tokens and webhooks
    /// address.
    public func configuredApp(id: String) -> MediaApp? {
        self.apps.first { $0.id == id }
    }

    /// `app(id:)`, after reading the created buckets again when another instance may have created it.
    public func app(refreshing id: String) async throws -> MediaApp? {
        if let app = self.app(id: id) { return app }
        guard self.buckets.isShared else { return nil }
        try await self.buckets.refresh { self.configuredApp(id: $0) }
        return self.app(id: id)
    }

    public func app(apiKey: String) -> MediaApp? {
        self.apps.first { $0.configuration.apiKey == apiKey }
    }
}
