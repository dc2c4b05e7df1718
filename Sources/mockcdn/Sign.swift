import ArgumentParser
import MockCDNCore
import MockCDNServer

/// `mockcdn sign cloudfront|presign URL`: print a signed link for a media URL.
struct Sign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign a media URL: a CloudFront link (canned or custom policy) or an S3 presigned URL.",
        discussion: """
            Examples:
              mockcdn sign cloudfront http://127.0.0.1:8080/demo/fixtures/sample.jpg
              mockcdn sign cloudfront http://127.0.0.1:8080/demo/fixtures/sample.jpg --resource 'http://127.0.0.1:8080/demo/*'
              mockcdn sign presign http://127.0.0.1:8080/demo/fixtures/sample.mp4 --ttl 300
              mockcdn sign presign http://127.0.0.1:8080/demo/fixtures/sample.mp4 --sigv2 --ttl 3600
            """
    )

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case cloudfront, presign
    }

    @Argument(help: "cloudfront or presign.")
    var kind: Kind

    @Argument(help: "The media URL, http(s)://HOST[:PORT]/{app}/{key}.")
    var url: String

    @Option(
        help: ArgumentHelp(
            "Lifetime in seconds (cloudfront: default 1209600, 14 days; presign: default 300, SigV4 at most "
                + "604800)."
        )
    )
    var ttl: Int64?

    @Option(help: "CloudFront: sign a custom policy for this resource (`*` wildcards) instead of a canned one.")
    var resource: String?

    @Flag(help: "CloudFront: RSA-SHA256 (adds Hash-Algorithm=SHA256) instead of SHA-1.")
    var sha256 = false

    @Flag(help: "Presign: Signature Version 2 (AWSAccessKeyId, Expires, Signature), as boto3 and awscli v1 do.")
    var sigv2 = false

    @OptionGroup var appOptions: AppOptions

    func validate() throws {
        if let ttl = self.ttl, !(1...(10 * 365 * 24 * 3600)).contains(ttl) {
            throw ValidationError("--ttl must be 1...315360000 seconds (ten years)")
        }
        if self.url.contains("#") { throw ValidationError("the URL must not have a #fragment (it is never sent)") }
        if self.kind == .presign, self.resource != nil || self.sha256 {
            throw ValidationError("--resource and --sha256 apply to cloudfront only")
        }
        if self.kind == .cloudfront, self.sigv2 {
            throw ValidationError("--sigv2 applies to presign only")
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
                        sha256: self.sha256
                    )
                )
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
