import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request for CDN content, as Stream's `CDNRequest`.
///
/// It carries the (possibly rewritten) URL, the headers to send, and the key an image cache should store the
/// answer under. ``MockCDNRequester`` builds these; ``MockCDNClient/MockCDNClient/data(for:)`` reads one.
public struct CDNRequest: Sendable, Equatable {
    /// Where to read from (possibly rewritten: resize parameters, no `fat`).
    public var url: URL
    /// Headers to send, e.g. `fat` in header-based mode.
    public var headers: [String: String]?
    /// The key an image cache stores the answer under; nil for the URL itself.
    public var cachingKey: String?

    /// A request for `url`, with optional headers and caching key.
    ///
    /// - Parameters:
    ///   - url: where to read from.
    ///   - headers: headers to send; nil for none.
    ///   - cachingKey: the key an image cache stores the answer under; nil for the URL itself.
    public init(url: URL, headers: [String: String]? = nil, cachingKey: String? = nil) {
        self.url = url
        self.headers = headers
        self.cachingKey = cachingKey
    }

    /// A `URLRequest` for the URL with the headers, for a `URLSession` or an image loader.
    public var urlRequest: URLRequest {
        var request = URLRequest(url: self.url)
        for (name, value) in self.headers ?? [:] { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }
}

/// A server-side resize, in pixels; a nil side follows the aspect ratio.
///
/// MockCDN takes Stream's resize parameters on any authorised image read, so one stored original answers
/// every size an app asks for. The same value describes an upload's extra sizes
/// (``AttachmentUploadOptions/uploadSizes``).
public struct CDNImageResize: Sendable, Equatable {
    /// Stream's `resize` parameter: how the image is fitted to the size asked for.
    public enum Mode: String, Sendable {
        /// Fit inside the size, keeping the aspect ratio, never enlarging (the server's default).
        case clip
        /// Cover the size, keeping the aspect ratio, and cut what is outside it at the ``CDNImageResize/Crop``
        /// anchor: exactly width x height.
        case crop
        /// Exactly width x height; the aspect ratio is ignored.
        case scale
        /// Fit inside the size without enlarging, then pad with black to exactly width x height.
        case fill
    }

    /// Stream's `crop` parameter: which part of the image ``Mode/crop`` keeps.
    public enum Crop: String, Sendable {
        /// Keep the middle, cutting equally from both sides (the server's default).
        case center
        /// Keep the top edge, cutting from the bottom.
        case top
        /// Keep the bottom edge, cutting from the top.
        case bottom
        /// Keep the left edge, cutting from the right.
        case left
        /// Keep the right edge, cutting from the left.
        case right
    }

    /// Target width in pixels (the server takes 1 to 4096); nil sends `w=*` (follows the aspect ratio).
    public var width: Int?
    /// Target height in pixels (the server takes 1 to 4096); nil sends `h=*` (follows the aspect ratio).
    public var height: Int?
    /// Sent as `resize` only when set (the server defaults to clip).
    public var mode: Mode?
    /// Sent as `crop` only when set (the server defaults to center).
    public var crop: Crop?

    /// A resize; every part optional.
    ///
    /// - Parameters:
    ///   - width: the target width in pixels; nil follows the aspect ratio.
    ///   - height: the target height in pixels; nil follows the aspect ratio.
    ///   - mode: how to fit the image; nil leaves it to the server (clip).
    ///   - crop: the anchor of ``Mode/crop``; nil leaves it to the server (center).
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
    ///
    /// - Parameter resize: the server-side resize; nil reads the original.
    public init(resize: CDNImageResize? = nil) {
        self.resize = resize
    }
}

/// Options of a file read, as Stream's `FileRequestOptions` (none yet).
public struct FileRequestOptions: Sendable, Equatable {
    /// No options; the type exists so the file read's signature matches Stream's.
    public init() {}
}

/// Stream's `CDNRequester`: how every image and file read is turned into a request.
///
/// Stream's SDK asks its requester before each read, so an app can rewrite URLs and add headers in one
/// place; ``MockCDNRequester`` is MockCDN's.
public protocol CDNRequester: Sendable {
    /// Builds the request for an image, resized as `options` says.
    ///
    /// - Parameters:
    ///   - url: the image's URL.
    ///   - options: the server-side resize, if any.
    ///   - completion: called once with the request, or with why none could be built.
    func imageRequest(
        for url: URL,
        options: ImageRequestOptions,
        completion: @escaping @Sendable (Result<CDNRequest, any Error>) -> Void
    )
    /// Builds the request for a file.
    ///
    /// - Parameters:
    ///   - url: the file's URL.
    ///   - options: the file read's options.
    ///   - completion: called once with the request, or with why none could be built.
    func fileRequest(
        for url: URL,
        options: FileRequestOptions,
        completion: @escaping @Sendable (Result<CDNRequest, any Error>) -> Void
    )
}

/// MockCDN's requester: Stream's resize parameters, a stable caching key and the FAT, on MockCDN's hosts.
///
/// On MockCDN's hosts, image requests get Stream's resize parameters (`w`, `h`, `resize` and `crop` when
/// set, `ro=0`) in place of any the URL had, and a caching key that keeps only `w`, `h`, `resize`, `crop`,
/// so links that differ in signature, expiry, `fat` or `X-Amz-*` share one cache entry. On the secure media
/// host the FAT goes in the query (embedded mode) or in the `fat` header (header mode). Other hosts pass
/// untouched. MockCDN signs neither the resize parameters nor `fat`, so appending them keeps a signed link
/// valid.
public struct MockCDNRequester: CDNRequester {
    /// Server, app and credentials.
    public let configuration: MockCDNClientConfiguration

    /// The parameters a cached image is told apart by, sorted: `crop`, `h`, `resize`, `w`.
    public static let cachingParameters = ["crop", "h", "resize", "w"]
    static let resizeParameters: Set<String> = ["w", "h", "resize", "crop", "ro"]

    /// A requester for `configuration`.
    ///
    /// - Parameter configuration: server, app and credentials.
    public init(configuration: MockCDNClientConfiguration) {
        self.configuration = configuration
    }

    /// Whether `url` is served by MockCDN (the base URL's host or the secure media host).
    ///
    /// Hosts are compared as `host[:port]`, lower-cased, without the scheme's default port.
    ///
    /// - Parameter url: any URL.
    /// - Returns: true for a URL on the base URL's host or the secure media host.
    public func isCDNURL(_ url: URL) -> Bool {
        let authority = MockCDNClientConfiguration.authority(of: url)
        return authority != nil
            && (authority == MockCDNClientConfiguration.authority(of: self.configuration.baseURL)
                || authority == MockCDNClientConfiguration.withoutDefaultPort(self.configuration.secureMediaHost))
    }

    /// The request for an image, resized as `options` says, with its caching key (and, on the secure media
    /// host, the FAT).
    ///
    /// - Parameters:
    ///   - url: the image's URL; one on another host comes back untouched, without a caching key.
    ///   - options: the resize; without one the URL keeps its query.
    /// - Returns: the request to send.
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
    ///
    /// - Parameters:
    ///   - url: the file's URL; one on another host comes back untouched.
    ///   - options: none yet.
    /// - Returns: the request to send.
    public func fileRequest(for url: URL, options: FileRequestOptions = FileRequestOptions()) -> CDNRequest {
        guard self.isCDNURL(url) else { return CDNRequest(url: url) }
        return self.secured(CDNRequest(url: url))
    }

    /// The completion-handler form of ``imageRequest(for:options:)`` (``CDNRequester``).
    ///
    /// - Parameters:
    ///   - url: the image's URL.
    ///   - options: the resize, if any.
    ///   - completion: called at once, always with success.
    public func imageRequest(
        for url: URL,
        options: ImageRequestOptions,
        completion: @escaping @Sendable (Result<CDNRequest, any Error>) -> Void
    ) {
        completion(.success(self.imageRequest(for: url, options: options)))
    }

    /// The completion-handler form of ``fileRequest(for:options:)`` (``CDNRequester``).
    ///
    /// - Parameters:
    ///   - url: the file's URL.
    ///   - options: none yet.
    ///   - completion: called at once, always with success.
    public func fileRequest(
        for url: URL,
        options: FileRequestOptions,
        completion: @escaping @Sendable (Result<CDNRequest, any Error>) -> Void
    ) {
        completion(.success(self.fileRequest(for: url, options: options)))
    }

    /// The key an image cache stores `url` under: the URL without query, then only the caching parameters.
    ///
    /// The kept parameters are sorted by name (then by text), so the key depends neither on their order nor
    /// on a link's signature, expiry or FAT.
    ///
    /// - Parameter url: an image URL, usually already rewritten by ``imageRequest(for:options:)``.
    /// - Returns: the caching key; the fragment is dropped with the query.
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
