import Foundation
import Hummingbird
import MockCDNCore
import Synchronization

/// Builds and signs the CDN links MockCDN hands out: `{base}/{app}/{key}?Expires&Signature&Key-Pair-Id`.
///
/// The base is the configured public URL; without one, it is the host the client used (its `Host`), so an
/// Android emulator reaching the server as `10.0.2.2` or a container reaching it by service name gets
/// links it can open; a link verifies when it arrives on the host it was signed for.
final class LinkSigner: Sendable {
    private struct State {
        var publicURL: String?
        /// `http://HOST:PORT` as bound (the real port once listening).
        var boundURL: String
    }

    private let state: Mutex<State>

    /// A signed parameter of MockCDN's upload URLs: the most bytes the upload may have.
    static let maximumBytesParameter = "x-mockcdn-max-bytes"
    /// A signed parameter of MockCDN's upload URLs: the user who asked for the URL, the object's owner.
    static let ownerParameter = "x-mockcdn-owner"

    /// Whether a query is one of MockCDN's upload URLs (`POST /v1/apps/{app}/uploads`): SigV4-presigned,
    /// with the upload's byte bound among its signed parameters. Their PUTs answer in CometChat's envelope;
    /// every other PUT is S3's.
    static func isUploadURL(_ query: QueryItems) -> Bool {
        query.first(Self.maximumBytesParameter) != nil && SigV4.isPresent(in: query.decoded)
    }

    init(base: String) {
        self.state = Mutex(State(publicURL: nil, boundURL: Self.trimmed(base)))
    }

    /// The base used when no request says otherwise: the public URL, else the bound address.
    var baseURL: String { self.state.withLock { $0.publicURL ?? $0.boundURL } }

    /// Called once the server is bound, so port 0 becomes the real port; an explicit public URL wins.
    func bound(to url: String, publicURL: String?) {
        self.state.withLock {
            $0.boundURL = Self.trimmed(url)
            $0.publicURL = publicURL.map(Self.trimmed)
        }
    }

    /// The base of links answered to `request`: the public URL when configured, else the bound scheme
    /// (`http://`, or `https://` with TLS) and the request's `Host` when it is a plain `host[:port]`, else the
    /// bound address.
    func base(for request: Request) -> String {
        self.state.withLock { state in
            if let publicURL = state.publicURL { return publicURL }
            guard let host = request.head.authority, HostAuthority.isPlain(host) else { return state.boundURL }
            return (state.boundURL.hasPrefix("https://") ? "https://" : "http://") + host
        }
    }

    /// The unsigned URL of a stored object (`{app}/...` key): the base, then each key segment percent-encoded.
    func objectURL(_ key: ObjectKey, base: String) -> String {
        base + "/" + PercentEncoding.encodePath(key.rawValue)
    }

    /// A CloudFront link to a stored object of `app` in the shape Stream's CDN issues (custom policy with a
    /// wildcard resource, and `oh`/`ow` for an image whose size is known), valid for the app's link lifetime
    /// from `now`.
    func signedURL(app: MediaApp, object: ObjectMetadata, now: Int64, base: String) throws -> String {
        let key = try ObjectKey(object.key)
        let header = ImageHeader(extras: object.extras)
        return try CloudFrontSigner(keyPair: app.activeKeyPair).streamURL(
            self.objectURL(key, base: base),
            expires: now + app.configuration.linkTTL,
            originalSize: header.map { ($0.width, $0.height) }
        )
    }

    /// The URL of a CometChat media object as the app hands it out: plain in `fat` mode (a read adds the
    /// FAT), a CloudFront canned link living the app's `presignedURLTTL` in `presigned` mode.
    func mediaURL(app: MediaApp, key: ObjectKey, now: Int64, base: String) throws -> String {
        let url = self.objectURL(key, base: base)
        switch app.configuration.mediaURLAccess {
        case .fat:
            return url
        case .presigned:
            return try CloudFrontSigner(keyPair: app.activeKeyPair).cannedURL(
                url,
                expires: now + app.configuration.presignedURLTTL
            )
        }
    }

    /// A SigV4 presigned GET of a stored object of `app` (path-style, bucket = app id), valid for the app's
    /// presign lifetime from `now`.
    func presignedURL(app: MediaApp, key: ObjectKey, now: Int64, base: String) -> String {
        SigV4.presignedURL(
            scheme: base.hasPrefix("https://") ? "https" : "http",
            authority: HostAuthority.of(base),
            path: "/" + key.rawValue,
            credentials: app.sigV4Credentials,
            date: now,
            expires: app.configuration.presignTTL
        )
    }

    /// A SigV4 presigned PUT of `key` (path-style, bucket = app id) for an upload: the content type is a signed
    /// header, and the size limit and the uploader are signed parameters, so none can be changed; valid for
    /// the app's upload URL lifetime from `now`.
    func uploadURL(
        app: MediaApp,
        key: ObjectKey,
        contentType: String,
        maximumBytes: Int,
        owner: String?,
        now: Int64,
        base: String
    ) -> String {
        var parameters = [(name: Self.maximumBytesParameter, value: String(maximumBytes))]
        if let owner { parameters.append((Self.ownerParameter, owner)) }
        return SigV4.presignedURL(
            method: "PUT",
            scheme: base.hasPrefix("https://") ? "https" : "http",
            authority: HostAuthority.of(base),
            path: "/" + key.rawValue,
            credentials: app.sigV4Credentials,
            date: now,
            expires: app.configuration.uploadURLTTL,
            parameters: parameters,
            headers: ["content-type": contentType]
        )
    }

    /// Checks a `--public-url`: `http(s)://host[:port]`, nothing after. Media routes sit at the root, so a
    /// path would be signed into links that the server never sees.
    ///
    /// - Parameter url: the configured public URL.
    /// - Throws: `MockCDNError.invalidConfiguration` with the reason.
    static func validatePublicURL(_ url: String) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", components.host?.isEmpty == false,
            components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil,
            components.user == nil
        else {
            throw MockCDNError.invalidConfiguration(
                "--public-url must be http(s)://HOST[:PORT] with no path, query or user: \(url.prefix(200))"
            )
        }
    }

    private static func trimmed(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}
