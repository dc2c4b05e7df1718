import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request for CDN content, as Stream's `CDNRequest`: the (possibly rewritten) URL, headers to send,
/// and the key an image cache should store it under.
public struct CDNRequest: Sendable, Equatable {
    /// Where to read from (possibly rewritten: resize parameters, no `fat`).
    public var url: URL
    /// Headers to send, e.g. `fat` in header-based mode.
    public var headers: [String: String]?
    /// The key an image cache stores the answer under; nil for the URL itself.
    public var cachingKey: String?

    /// A request for `url`, with optional headers and caching key.
    public init(url: URL, headers: [String: String]? = nil, cachingKey: String? = nil) {
        self.url = url
        self.headers = headers
        self.cachingKey = cachingKey
    }

    /// A `URLRequest` for the URL with the headers.
    public var urlRequest: URLRequest {
        var request = URLRequest(url: self.url)
        for (name, value) in self.headers ?? [:] { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }
}

/// A server-side resize, in pixels; a nil side follows the aspect ratio.
public struct CDNImageResize: Sendable, Equatable {
    /// Stream's `resize`: clip (fit inside, never enlarge), crop (cover and cut), scale (exact), fill (pad).
    public enum Mode: String, Sendable {
        case clip, crop, scale, fill
    }

    /// Stream's `crop` anchor for `resize=crop`.
    public enum Crop: String, Sendable {
        case center, top, bottom, left, right
    }

    /// Target width in pixels; nil sends `w=*` (follows the aspect ratio).
    public var width: Int?
    /// Target height in pixels; nil sends `h=*`.
    public var height: Int?
    /// Sent as `resize` only when set (the server defaults to clip).
    public var mode: Mode?
    /// Sent as `crop` only when set (the server defaults to center).
    public var crop: Crop?

    /// A resize; every part optional.
    public init(width: Int? = nil, height: Int? = nil, mode: Mode? = nil, crop: Crop? = nil) {
        self.width = width
        self.height = height
        self.mode = mode
        self.crop = crop
    }
}

/// Options of an image read, as Stream's `ImageRequestOptions`.
public struct ImageRequestOptions: Sendable, Equatable {
    /// The server-side resize to ask for; nil reads the original.
    public var resize: CDNImageResize?

    /// Options with an optional resize.
    public init(resize: CDNImageResize? = nil) {
        self.resize = resize
    }
}

/// Options of a file read, as Stream's `FileRequestOptions` (none yet).
public struct FileRequestOptions: Sendable, Equatable {
    /// No options.
    public init() {}
}

/// Stream's `CDNRequester`: how every image and file read is turned into a request.
public protocol CDNRequester: Sendable {
    func imageRequest(
        for url: URL,
        options: ImageRequestOptions,
        completion: @escaping @Sendable (Result<CDNRequest, any Error>) -> Void
    )
    func fileRequest(
        for url: URL,
        options: FileRequestOptions,
        completion: @escaping @Sendable (Result<CDNRequest, any Error>) -> Void
    )
}

/// MockCDN's requester: on MockCDN's hosts, image requests get Stream's resize parameters (`w`, `h`,
/// `resize` and `crop` when set, `ro=0`) in place of any the URL had, and a caching key that keeps only
/// `w`, `h`, `resize`, `crop`, so links that differ in signature, expiry, `fat` or `X-Amz-*` share one
/// cache entry. On the secure media host the FAT goes in the query (embedded mode) or in the `fat` header
/// (header mode). Other hosts pass untouched.
public struct MockCDNRequester: CDNRequester {
    /// Server, app and credentials.
    public let configuration: MockCDNClientConfiguration

    /// The parameters a cached image is told apart by.
    public static let cachingParameters = ["crop", "h", "resize", "w"]
    static let resizeParameters: Set<String> = ["w", "h", "resize", "crop", "ro"]

    /// A requester for `configuration`.
    public init(configuration: MockCDNClientConfiguration) {
        self.configuration = configuration
    }

    /// Whether `url` is served by MockCDN (the base URL's host or the secure media host).
    public func isCDNURL(_ url: URL) -> Bool {
        let authority = MockCDNClientConfiguration.authority(of: url)
        return authority != nil
            && (authority == MockCDNClientConfiguration.authority(of: self.configuration.baseURL)
                || authority == MockCDNClientConfiguration.withoutDefaultPort(self.configuration.secureMediaHost))
    }

    /// The request for an image, resized as `options` says.
    public func imageRequest(for url: URL, options: ImageRequestOptions) -> CDNRequest {
        guard self.isCDNURL(url) else { return CDNRequest(url: url) }
        var target = url
        if let resize = options.resize {
            var query = QueryText(url)
            query.items.removeAll { Self.resizeParameters.contains($0.name) }
            query.items.append(("w", "w=" + (resize.width.map(String.init) ?? "*")))
            query.items.append(("h", "h=" + (resize.height.map(String.init) ?? "*")))
            if let mode = resize.mode { query.items.append(("resize", "resize=" + mode.rawValue)) }
            if let crop = resize.crop { query.items.append(("crop", "crop=" + crop.rawValue)) }
            query.items.append(("ro", "ro=0"))
            target = query.url ?? url
        }
        return self.secured(CDNRequest(url: target, cachingKey: Self.cachingKey(for: target)))
    }

    /// The request for a file: the URL as it is, with the FAT where the secure-media mode puts it.
    public func fileRequest(for url: URL, options: FileRequestOptions = FileRequestOptions()) -> CDNRequest {
        guard self.isCDNURL(url) else { return CDNRequest(url: url) }
        return self.secured(CDNRequest(url: url))
    }

    /// The completion-handler form of `imageRequest(for:options:)` (`CDNRequester`).
    public func imageRequest(
        for url: URL,
        options: ImageRequestOptions,
        completion: @escaping @Sendable (Result<CDNRequest, any Error>) -> Void
    ) {
        completion(.success(self.imageRequest(for: url, options: options)))
    }

    /// The completion-handler form of `fileRequest(for:options:)` (`CDNRequester`).
    public func fileRequest(
        for url: URL,
        options: FileRequestOptions,
        completion: @escaping @Sendable (Result<CDNRequest, any Error>) -> Void
    ) {
        completion(.success(self.fileRequest(for: url, options: options)))
    }

    /// The URL without query, then only the caching parameters, sorted by name.
    public static func cachingKey(for url: URL) -> String {
        let query = QueryText(url)
        let kept = query.items.filter { Self.cachingParameters.contains($0.name) }
            .sorted { $0.name == $1.name ? $0.text < $1.text : $0.name < $1.name }
        return query.head + (kept.isEmpty ? "" : "?" + kept.map(\.text).joined(separator: "&"))
    }

    /// In header-based mode on the secure media host: no `fat` in the URL, the FAT in a header.
    /// The FAT where the mode puts it, as CometChat's SDK does: in the query in embedded mode, in the `fat`
    /// header (and out of the query) in header mode; only for URLs on the secure media host.
    private func secured(_ request: CDNRequest) -> CDNRequest {
        let secureMedia = SecureMedia(configuration: self.configuration)
        guard secureMedia.shouldInjectFatHeader(for: request.url), let fat = secureMedia.decodedFat else {
            var embedded = request
            embedded.url = secureMedia.embeddingFat(in: request.url)
            return embedded
        }
        var secured = request
        secured.url = secureMedia.stripFatQueryParam(from: request.url)
        secured.headers = (request.headers ?? [:]).merging([SecureMedia.fatName: fat]) { _, new in new }
        return secured
    }
}
