import ArgumentParser
import MockCDNCore
import MockCDNServer

/// `mockcdn sign cloudfront|presign URL`: print a signed link for a media URL.
struct Sign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Sign a media URL: a CloudFront link (canned or custom policy), CloudFront signed cookies, or an S3 "
            + "presigned URL.",
        discussion: """
            Examples:
              mockcdn sign cloudfront http://127.0.0.1:8080/demo/fixtures/sample.jpg
              mockcdn sign cloudfront http://127.0.0.1:8080/demo/fixtures/sample.jpg --resource 'http://127.0.0.1:8080/demo/*'
              mockcdn sign cookies 'http://127.0.0.1:8080/demo/*' --ttl 3600
              mockcdn sign cloudfront http://127.0.0.1:8080/acme/x.jpg --app acme --config mockcdn.yaml --key-pair-id KACMEEC0000001
              mockcdn sign presign http://127.0.0.1:8080/demo/fixtures/sample.mp4 --ttl 300
              mockcdn sign presign http://127.0.0.1:8080/demo/fixtures/sample.mp4 --sigv2 --ttl 3600
            """
    )

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case cloudfront, cookies, presign
    }

    @Argument(help: "cloudfront, cookies or presign.")
    var kind: Kind

    @Argument(
        help: "The media URL, http(s)://HOST[:PORT]/{app}/{key}; for cookies also a pattern with `*` (custom policy)."
    )
    var url: String

    @Option(
        help: ArgumentHelp(
            "Lifetime in seconds (cloudfront and cookies: default 1209600, 14 days; presign: default 300, SigV4 "
                + "at most 604800)."
        )
    )
    var ttl: Int64?

    @Option(help: "CloudFront: sign a custom policy for this resource (`*` wildcards) instead of a canned one.")
    var resource: String?

    @Flag(help: "Cookies: a custom policy for the URL even without a `*` (a canned one otherwise).")
    var custom = false

    @Flag(help: "CloudFront and cookies: sign over SHA-256 (adds Hash-Algorithm=SHA256) instead of SHA-1.")
    var sha256 = false

    @Option(
        name: .customLong("key-pair-id"),
        help: ArgumentHelp(
            "CloudFront and cookies: sign with this key pair of the app (it must hold a private key) instead of "
                + "the active one. RSA or ECDSA P-256, as the key is."
        )
    )
    var keyPairID: String?

    @Flag(help: "Presign: Signature Version 2 (AWSAccessKeyId, Expires, Signature), as boto3 and awscli v1 do.")
    var sigv2 = false

    @OptionGroup var appOptions: AppOptions

    func validate() throws {
        if let ttl = self.ttl, !(1...(10 * 365 * 24 * 3600)).contains(ttl) {
            throw ValidationError("--ttl must be 1...315360000 seconds (ten years)")
        }
        if self.url.contains("#") { throw ValidationError("the URL must not have a #fragment (it is never sent)") }
        if self.kind == .presign, self.resource != nil || self.sha256 || self.keyPairID != nil {
            throw ValidationError("--resource, --sha256 and --key-pair-id apply to cloudfront only")
        }
        if self.kind != .presign, self.sigv2 {
            throw ValidationError("--sigv2 applies to presign only")
        }
        if self.kind != .cookies, self.custom { throw ValidationError("--custom applies to cookies only") }
        if self.kind == .cookies, self.resource != nil {
            throw ValidationError("cookies take the pattern as the URL argument, not --resource")
        }
    }

    func run() async throws {
        let app = try self.appOptions.loadApp()
        let now = try await self.appOptions.signingTime()
        do {
            switch self.kind {
            case .cloudfront:
                print(
                    try CommandLineTools.cloudFrontURL(
                        self.url,
                        app: app,
                        expires: now + (self.ttl ?? app.configuration.linkTTL),
                        resource: self.resource,
                        sha256: self.sha256,
                        keyPairID: self.keyPairID
                    )
                )
            case .cookies:
                let lines = try CommandLineTools.cloudFrontCookies(
                    self.url,
                    app: app,
                    expires: now + (self.ttl ?? app.configuration.linkTTL),
                    custom: self.custom,
                    sha256: self.sha256,
                    keyPairID: self.keyPairID
                )
                print(lines.joined(separator: "\n"))
            case .presign where self.sigv2:
                print(
                    try CommandLineTools.sigV2PresignedURL(
                        self.url,
                        app: app,
                        expires: now + (self.ttl ?? app.configuration.presignTTL)
                    )
                )
            case .presign:
                print(
                    try CommandLineTools.presignedURL(
                        self.url,
                        app: app,
                        lifetime: self.ttl ?? app.configuration.presignTTL,
                        now: now
                    )
                )
            }
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
