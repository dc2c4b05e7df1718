import Foundation
import MockCDNCore
import MockCDNServer

/// The work behind `mockcdn token`, `mockcdn sign` and `mockcdn keys`: the same signing code the server
/// verifies with, for the apps of the same configuration.
enum CommandLineTools {
    /// The app `id` (or the default app) of the config file at `config` (or of `MOCKCDN_CONFIG`, or the
    /// built-in demo app).
    ///
    /// - Throws: `MockCDNError.invalidConfiguration` for an unknown app or a bad file.
    static func app(id: String?, config: String?, environment: [String: String]) throws -> MediaApp {
        let path = config ?? environment[ServeSetting.config.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
        let configurations = try path.map(ConfigurationFile.apps(from:)) ?? [.demo]
        guard let configuration = id.map({ id in configurations.first { $0.appID == id } }) ?? configurations.first
        else {
            throw MockCDNError.invalidConfiguration(
                "no app \(id ?? "") in \(path ?? "the built-in configuration"); apps: "
                    + configurations.map(\.appID).joined(separator: ", ")
            )
        }
        return try MediaApp(configuration)
    }

    /// A Stream JWT: `{"server":true}`, or `{"user_id":...}`; with `iat` and `exp` when a lifetime is given.
    static func streamToken(app: MediaApp, user: String?, lifetime: Int64?, now: Int64) -> String {
        app.configuration.streamToken(user: user, issuedAt: lifetime == nil ? nil : now, lifetime: lifetime)
    }

    /// A File Access Token for `user`, valid for `lifetime` seconds from `now`.
    static func fileAccessToken(app: MediaApp, user: String, lifetime: Int64, now: Int64) -> String {
        app.configuration.fileAccessToken(user: user, issuedAt: now, lifetime: lifetime)
    }

    /// The key pair `id` of `app`, or its active one, able to sign.
    ///
    /// - Parameters:
    ///   - id: a key pair id of the app (any status: a retired key's links show how they are refused), or nil
    ///     for the active pair.
    ///   - app: the app.
    /// - Returns: a signer for that pair.
    /// - Throws: `MockCDNError.invalidConfiguration` for an id the app does not have, or a pair whose private
    ///   key the configuration does not hold.
    static func signer(keyPairID id: String?, app: MediaApp) throws -> CloudFrontSigner {
        guard let id else { return CloudFrontSigner(keyPair: app.activeKeyPair) }
        guard let pair = app.keyPair(id: id) else {
            throw MockCDNError.invalidConfiguration(
                "app \(app.id) has no key pair \(id.prefix(64)); key pairs: "
                    + app.keyPairs.map(\.id).joined(separator: ", ")
            )
        }
        guard pair.key.isPrivate else {
            throw MockCDNError.invalidConfiguration(
                "key pair \(pair.id) of app \(app.id) has only a public key: it verifies, it cannot sign"
            )
        }
        return CloudFrontSigner(keyPair: pair)
    }

    /// A CloudFront link signed with the app's active key (or the pair `keyPairID`): canned, or custom when
    /// `resource` (a glob) is given. RSA or ECDSA, as the key is.
    ///
    /// - Throws: `MockCDNError.invalidConfiguration` when the URL is not an absolute http(s) URL or the key
    ///   pair cannot sign, `.invalidKeyMaterial` when the active key has no private half.
    static func cloudFrontURL(
        _ url: String,
        app: MediaApp,
        expires: Int64,
        resource: String?,
        sha256: Bool,
        keyPairID: String? = nil
    ) throws -> String {
        guard let components = URLComponents(string: url), ["http", "https"].contains(components.scheme?.lowercased()),
            components.host?.isEmpty == false
        else { throw MockCDNError.invalidConfiguration("\(url.prefix(200)) is not an absolute http(s) URL") }
        let signer = try self.signer(keyPairID: keyPairID, app: app)
        let hash: SignatureHash = sha256 ? .sha256 : .sha1
        guard let resource else { return try signer.cannedURL(url, expires: expires, hash: hash) }
        return try signer.customURL(
            url,
            policy: CloudFrontPolicy(resource: resource, dateLessThan: expires),
            hash: hash
        )
    }

    /// `Set-Cookie` lines of CloudFront signed cookies for `url`: with a `*` in it (or `custom`), a custom
    /// policy whose resource is `url`; without, a canned policy for exactly that URL. Each cookie's `Path` is
    /// the URL's path up to its last `/` before any `*`, so the browser sends them for what they cover. Signed
    /// by the active key, or the pair `keyPairID`.
    ///
    /// - Throws: `MockCDNError.invalidConfiguration` when the URL is not an absolute http(s) URL or the key
    ///   pair cannot sign, `.invalidKeyMaterial` when the active key has no private half.
    static func cloudFrontCookies(
        _ url: String,
        app: MediaApp,
        expires: Int64,
        custom: Bool,
        sha256: Bool,
        keyPairID: String? = nil
    ) throws
        -> [String]
    {
        let fixed = String(url.prefix { $0 != "*" })
        guard let components = URLComponents(string: fixed),
            ["http", "https"].contains(components.scheme?.lowercased()),
            components.host?.isEmpty == false
        else { throw MockCDNError.invalidConfiguration("\(url.prefix(200)) is not an absolute http(s) URL") }
        let signer = try self.signer(keyPairID: keyPairID, app: app)
        let hash: SignatureHash = sha256 ? .sha256 : .sha1
        let cookies =
            custom || url.contains("*")
            ? try signer.cookies(policy: CloudFrontPolicy(resource: url, dateLessThan: expires), hash: hash)
            : try signer.cookies(policy: nil, resource: url, expires: expires, hash: hash)
        let path = components.percentEncodedPath
        let folder = path.isEmpty ? "/" : String(path[...(path.lastIndex(of: "/") ?? path.startIndex)])
        let secure = components.scheme?.lowercased() == "https" ? "; Secure" : ""
        return cookies.map { "Set-Cookie: \($0.name)=\($0.value); Path=\(folder)\(secure); HttpOnly" }
    }

    /// A SigV4 presigned GET of a MockCDN media URL (path-style: `/{app}/{key}`) with the app's API key and
    /// secret in its S3 region, as `POST /v1/apps/{app}/presign` makes it.
    ///
    /// - Throws: `MockCDNError.invalidConfiguration` when the URL is not an http(s) URL of the app.
    static func presignedURL(_ url: String, app: MediaApp, lifetime: Int64, now: Int64) throws -> String {
        let (scheme, authority, path) = try self.mediaURL(url, app: app)
        guard (1...SigV4.maximumExpires).contains(lifetime) else {
            throw MockCDNError.invalidConfiguration("the lifetime must be 1...\(SigV4.maximumExpires) seconds")
        }
        return SigV4.presignedURL(
            scheme: scheme,
            authority: authority,
            path: path,
            credentials: app.sigV4Credentials,
            date: now,
            expires: lifetime
        )
    }

    /// A SigV2 presigned GET of a MockCDN media URL (path-style) with the app's API key and secret, as boto3
    /// and awscli v1 make it by default.
    ///
    /// - Parameters:
    ///   - url: the media URL.
    ///   - app: the signing app.
    ///   - expires: the Unix time the URL stops working.
    /// - Returns: the presigned URL.
    /// - Throws: `MockCDNError.invalidConfiguration` when the URL is not an http(s) URL of the app, or `expires`
    ///   is not 0...9999999999 (ten digits, the most `Expires` MockCDN reads).
    static func sigV2PresignedURL(_ url: String, app: MediaApp, expires: Int64) throws -> String {
        let (scheme, authority, path) = try self.mediaURL(url, app: app)
        guard (0...9_999_999_999).contains(expires) else {
            throw MockCDNError.invalidConfiguration("Expires must be 0...9999999999 (Unix seconds)")
        }
        return SigV2.presignedURL(
            scheme: scheme,
            authority: authority,
            path: path,
            accessKeyID: app.sigV4Credentials.accessKeyID,
            secretAccessKey: app.sigV4Credentials.secretAccessKey,
            expires: expires
        )
    }

    /// The scheme, authority (default port left out) and decoded path of an http(s) URL of `app`'s objects.
    private static func mediaURL(_ url: String, app: MediaApp) throws -> (String, String, String) {
        guard let media = MediaURL(url), let key = media.key(in: app.id) else {
            throw MockCDNError.invalidConfiguration("\(url.prefix(200)) is not an http(s) URL under /\(app.id)/")
        }
        return (media.scheme, media.authority, "/" + key.rawValue)
    }

    /// The app's key pairs: id, status, algorithm and public key PEM; with `directory`, each pair's PEM files are
    /// written there too (`{id}.public.pem`, and `{id}.private.pem` where the private half is known).
    ///
    /// - Returns: what to print.
    /// - Throws: `MockCDNError.storageFailure` when a file cannot be written.
    static func keys(app: MediaApp, exportTo directory: String?) throws -> String {
        var lines: [String] = []
        for pair in app.keyPairs {
            let publicPEM = try pair.key.publicKeyPEM
            lines.append("\(pair.id) \(pair.status.rawValue) \(pair.key.algorithm)")
            lines.append(publicPEM.trimmingCharacters(in: .whitespacesAndNewlines))
            guard let directory else { continue }
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var files = [("public", publicPEM)]
            if pair.key.isPrivate { files.append(("private", try pair.key.privateKeyPEM)) }
            for (kind, pem) in files {
                let path = directory + "/\(pair.id).\(kind).pem"
                guard FileManager.default.createFile(atPath: path, contents: Data(pem.utf8)) else {
                    throw MockCDNError.storageFailure("cannot write \(path)")
                }
                lines.append("wrote \(path)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
