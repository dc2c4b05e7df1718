import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore

/// The web console, `GET /_mockcdn/ui`: one page of static HTML, CSS and plain JavaScript shipped as resources
/// of this target (`Resources/console/`), which calls the JSON control routes; and `GET /_mockcdn/objects`,
/// the one route it needs that tests did not: an app's objects with their thumbnails and fresh links.
///
/// The page's scripts run under a Content-Security-Policy with a nonce made per page load, so no script runs
/// but the console's own: not an inline one, and not an uploaded `.js` served from the same origin.
struct ConsoleController {
    let apps: AppRegistry
    let store: any ObjectStore
    let clock: MockClock
    let links: LinkSigner

    /// The files under `/_mockcdn/ui/` and their types; anything else is 404.
    static let files: [String: String] = [
        "console.js": "text/javascript; charset=utf-8",
        "console.css": "text/css; charset=utf-8",
        // The page names its own icon, so that the browser never asks for `/favicon.ico`, an app's path.
        "favicon.svg": "image/svg+xml",
    ]

    /// The page and its files, read from the resources once (nil when not installed).
    static let installed: [String: Data] = {
        var found: [String: Data] = [:]
        for name in Self.files.keys + ["index.html"] {
            found[name] = ServerResources.data("console/" + name)
        }
        return found
    }()

    /// Objects one listing shows at most.
    static let listingLimit = 500
    /// The box thumbnails are resized into, in pixels.
    static let thumbnailSide = 240
    /// Seconds the console's FATs (thumbnails, the FAT link) live.
    static let fatLifetime: Int64 = 3600

    struct Listing: ResponseEncodable {
        let app: String
        let now: Int64
        let truncated: Bool
        /// A FAT the page sends in the `fat` header for thumbnails, so their URLs carry no credential (a
        /// browser logs the URL of a load that fails).
        let thumbnailFAT: String
        /// The value of `x-mockcdn-console` on thumbnail reads (`ConsoleMark`): the journal, the metrics and the
        /// faults pass them by, so opening the console changes nothing a test sees.
        let consoleToken: String
        let objects: [Object]
    }

    struct Object: Encodable {
        let key: String
        let name: String
        let size: Int
        let contentType: String
        let kind: String
        let etag: String
        let created: Int64
        let owner: String?
        let channel: String?
        let width: Int?
        let height: Int?
        let thumbnail: String?
        let links: [Link]
    }

    struct Link: Encodable {
        let kind: String
        let url: String
        let expiresAt: Int64
    }

    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.get("ui") { _, _ in try self.page() }
        group.get("ui/:file") { _, context in
            let name = context.parameters.get("file") ?? ""
            guard let type = Self.files[name], let data = Self.installed[name] else {
                throw HTTPError(.notFound, message: "no such console file")
            }
            return Self.response(ByteBuffer(bytes: data), type: type, policy: Self.policy(nonce: nil))
        }
        group.get("objects") { request, context in
            try await self.objects(context.query(of: request), base: self.links.base(for: request))
        }
    }

    /// The page, with a fresh nonce in its policy and on its script tag.
    func page() throws -> Response {
        guard let data = Self.installed["index.html"] else {
            throw HTTPError(.notFound, message: "the console is not installed next to the mockcdn binary")
        }
        let nonce = SecureBytes.random(count: 16).hexString
        let html = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "{{nonce}}", with: nonce)
        return Self.response(
            ByteBuffer(string: html),
            type: "text/html; charset=utf-8",
            policy: Self.policy(nonce: nonce)
        )
    }

    /// Only the console's own script (by nonce), styles and connections on this origin; images from this origin
    /// (thumbnails) and `blob:` (a dropped file's preview); no frames, plugins, forms elsewhere, or base URL.
    static func policy(nonce: String?) -> String {
        [
            "default-src 'none'",
            "script-src " + (nonce.map { "'nonce-\($0)'" } ?? "'none'"),
            "style-src 'self'",
            "img-src 'self' blob:",
            "connect-src 'self'",
            "form-action 'none'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    static func response(_ body: ByteBuffer, type: String, policy: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: type,
                .contentSecurityPolicy: policy,
                .cacheControl: "no-store",
                HTTPField.Name("Referrer-Policy")!: "no-referrer",
            ],
            body: ResponseBody(byteBuffer: body)
        )
    }

    /// `GET /_mockcdn/objects?app=&prefix=&kind=image|video|other`.
    func objects(_ query: QueryItems, base: String) async throws -> Listing {
        if let unknown = query.firstName(notIn: ["app", "prefix", "kind"]) {
            throw HTTPError(.badRequest, message: "unknown parameter \(unknown.prefix(64)); use app, prefix or kind")
        }
        let appID = query.first("app") ?? self.apps.apps[0].id
        guard let app = self.apps.app(id: appID) else {
            throw HTTPError(.badRequest, message: "app \(appID.prefix(64)) is not an app of this server")
        }
        let kind = query.first("kind")
        if let kind, !["image", "video", "other"].contains(kind) {
            throw HTTPError(.badRequest, message: "kind must be image, video or other")
        }
        let prefix = query.first("prefix") ?? ""
        let now = self.clock.unixSeconds
        // One FAT for the listing: the page reads thumbnails with it, and each FAT link carries it.
        let fat = app.configuration.fileAccessToken(user: "console", issuedAt: now, lifetime: Self.fatLifetime)
        let all = try await self.store.list(prefix: app.id + "/" + prefix)
            .filter { $0.extras["poster_of"] == nil }
            .sorted { $0.created > $1.created }
        var objects: [Object] = []
        for metadata in all {
            let objectKind = Self.kind(of: metadata.contentType)
            if let kind, kind != objectKind { continue }
            guard objects.count < Self.listingLimit else { break }
            objects.append(
                try await self.describe(metadata, kind: objectKind, app: app, now: now, fat: fat, base: base)
            )
        }
        return Listing(
            app: app.id,
            now: now,
            truncated: objects.count == Self.listingLimit,
            thumbnailFAT: fat,
            consoleToken: ConsoleMark.token,
            objects: objects
        )
    }

    static func kind(of contentType: String) -> String {
        if contentType.hasPrefix("video/") { return "video" }
        // SVG is never rasterised: it is shown by its type, like any other file.
        if contentType.hasPrefix("image/"), !contentType.hasPrefix("image/svg") { return "image" }
        return "other"
    }

    func describe(
        _ metadata: ObjectMetadata,
        kind: String,
        app: MediaApp,
        now: Int64,
        fat: String,
        base: String
    ) async throws -> Object {
        let key = try ObjectKey(metadata.key)
        let cloudFront = try self.links.signedURL(app: app, object: metadata, now: now, base: base)
        // The resize path's own parameters, on the unsigned URL: the page sends the listing's FAT in a header.
        let resize = "?w=\(Self.thumbnailSide)&h=\(Self.thumbnailSide)&resize=crop"
        let header = ImageHeader(extras: metadata.extras)
        // A source the resize refuses (over the app's pixel limit) gets no thumbnail: its read would only be a 422.
        let resizable = header.map {
            (try? VariantRenderer.checkPixels($0, maximumPixels: app.configuration.maximumSourcePixels)) != nil
        }
        var thumbnail: String? = nil
        if kind == "image", resizable ?? true {
            thumbnail = self.links.objectURL(key, base: base) + resize
        } else if let poster = metadata.extras["poster"].flatMap({ try? ObjectKey($0) }),
            try await self.store.metadata(for: poster) != nil
        {
            thumbnail = self.links.objectURL(poster, base: base) + resize
        }
        return Object(
            key: metadata.key,
            name: metadata.extras["original_name"] ?? String(metadata.key.split(separator: "/").last ?? ""),
            size: metadata.size,
            contentType: metadata.contentType,
            kind: kind,
            etag: metadata.etag,
            created: Int64(metadata.created.timeIntervalSince1970),
            owner: metadata.owner,
            channel: metadata.extras["channel"],
            width: header?.width,
            height: header?.height,
            thumbnail: thumbnail,
            links: [
                Link(kind: "cloudfront", url: cloudFront, expiresAt: now + app.configuration.linkTTL),
                Link(
                    kind: "presigned",
                    url: self.links.presignedURL(app: app, key: key, now: now, base: base),
                    expiresAt: now + app.configuration.presignTTL
                ),
                Link(
                    kind: "fat",
                    url: self.links.objectURL(key, base: base) + "?fat=" + PercentEncoding.encode(fat),
                    expiresAt: now + Self.fatLifetime
                ),
            ]
        )
    }
}
