import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MockCDNCore
import NIOCore

/// The answer to a plain media read, made on the event loop that received it (`FastReadHandler`), when it
/// can be the route's very answer without waiting for anything; otherwise nil, and the request goes to the
/// router as any other.
///
/// Nothing here decides a rule of its own: the answer is `CDNController.original`'s, the credential is
/// judged by the route's `MediaReadAuthorizer` (the verified-credential cache, or the full check), the route's
/// group adds `AmzRequestID.mark`'s headers, and the request observers (`RequestObservers`: the trim, the
/// browser policy, the metrics, the journal, the faults) are run on the answer from the same list, in the
/// same order, as the router runs them. What is decided here is only which requests those functions alone
/// answer exactly as the router's stack would: a GET or HEAD without a body, `Expect` or `Connection`, on a
/// path-style media path of a known app, whose query holds nothing but credentials (and a transform whose
/// variant the cache holds in memory), of an object the store holds in memory, that every observer lets
/// through (no fault rule is armed), and with a credential that holds (or none, for an object its ACL opens
/// to everyone: `CDNController.readsWithoutCredential`). Anything else, a refusal included, is the router's.
struct FastReads: Sendable {
    let apps: AppRegistry
    let store: any ObjectStore
    let variants: VariantCache
    let authorizer: MediaReadAuthorizer
    /// GETs another surface answers by their query (S3's ListParts, the files host).
    let handoffs: [QueryHandoff]
    /// First path segments of the routes that are not media reads (`routePrefixes`).
    let reserved: Set<String>
    /// The observers the router runs, which run here on every answer made.
    let observers: RequestObservers
    /// The `Server` header Hummingbird puts on every answer.
    let serverName: String
    let logger: Logger
    /// The query parameters a fast read may carry: credentials, transforms and the original size on Stream's
    /// image links. `response-*` overrides, `partNumber` and S3's sub-resources are the router's.
    let readParameters: Set<String>

    init(
        reads: MediaReads,
        reserved: Set<String>,
        observers: RequestObservers,
        serverName: String,
        logger: Logger
    ) {
        self.apps = reads.apps
        self.store = reads.store
        self.variants = reads.variants
        self.authorizer = reads.authorizer
        self.handoffs = reads.handoffs
        self.reserved = reserved
        self.observers = observers
        self.serverName = serverName
        self.logger = logger
        self.readParameters = reads.leading.reduce(
            SigV4.parameterNames.union(SigV2.parameterNames).union(CloudFrontCredential.parameterNames)
        ) { $0.union($1.appendableParameters) }.union(ImageTransform.parameterNames)
            .union(CloudFrontSigner.originalSizeParameters)
    }

    /// An answer made on the event loop: the response as the router's stack leaves it (but `Date`), and its
    /// body.
    struct Answer {
        var head: HTTPResponse
        var body: ByteBuffer?
    }

    /// The answer to `head`, when it is a read this path answers exactly as the router would; nil otherwise.
    ///
    /// - Parameters:
    ///   - head: the request head; the request has no body.
    ///   - channel: its connection (the client address of CloudFront `IpAddress` conditions).
    ///   - date: the `Date` header Hummingbird would put on the answer now.
    /// - Returns: the answer, journaled and counted; nil to hand the request to the router.
    func answer(
        _ head: HTTPRequest,
        channel: any Channel,
        date: () -> String
    ) -> Answer? {
        guard head.method == .get || head.method == .head, self.isBodiless(head),
            self.observers.allowsFastAnswer(head)
        else { return nil }
        // The path and query as Hummingbird reads them for the router and every middleware.
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        let path = request.uri.path
        guard let appID = self.mediaApp(of: path), let app = self.apps.app(id: appID),
            VirtualHost.app(named: head.authority, in: self.apps) == nil
        else { return nil }
        let query = QueryItems(request.uri.query)
        guard query.firstName(notIn: self.readParameters) == nil,
            !self.handoffs.contains(where: { $0.claims(query, headers: head.headerFields) }),
            let key = try? ObjectKey(app: appID, percentEncodedPath: path),
            let (metadata, bytes) = self.store.residentNow(key)
        else { return nil }
        // First the answer, then the credential, whose check counts a cache hit: a read handed to the router
        // after that would count it twice. A variant's use is only counted (`countHit`) after the credential;
        // one the cache does not hold in memory is the router's to read or render.
        let transform: ImageTransform?
        do { transform = try CDNController.transform(in: query, of: metadata) } catch { return nil }
        var body: ByteBuffer? = nil
        func answered(_ bytes: ByteBuffer, _ range: Range<Int>?) -> ResponseBody {
            body = CDNController.slice(bytes, range)
            return ResponseBody(byteBuffer: body!)
        }
        let answer: Response?
        if let transform {
            guard
                let variant = self.variants.recent(
                    VariantCache.Key(object: key.rawValue, etag: metadata.etag, transform: transform)
                )
            else { return nil }
            answer = try? CDNController.answer(
                request,
                query: query,
                app: app,
                metadata: metadata,
                part: nil,
                variant: variant,
                body: { answered(variant.bytes, $0) }
            )
        } else {
            answer = try? CDNController.original(
                request,
                query: query,
                app: app,
                metadata: metadata,
                part: nil,
                body: { answered(bytes, $0) }
            )
        }
        guard var response = answer else { return nil }
        // The request's id, as Hummingbird gives one to each request it reads: S3's identifiers name it.
        var logger = self.logger
        logger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())
        var context = AppRequestContext(source: .init(channel: channel, logger: logger))
        context.query = query
        let credential: CredentialSource
        do {
            credential = try self.authorizer.authorize(request, context: context, app: app, key: key, query: query)
        } catch {
            guard CDNController.readsWithoutCredential(error, object: metadata) else { return nil }
            credential = .none
        }
        if transform != nil {
            // Counted as the route's lookup would have.
            self.variants.countHit()
        }
        // The route's group's headers, then the observers, innermost first, as the answer leaves the router.
        context.notes.route = MediaReads.route
        context.notes.credential = credential
        AmzRequestID.mark(&response.headers, id: context.id)
        self.observers.observeFast(request, context: context, response: &response)
        response.headers[.date] = date()
        response.headers[.server] = self.serverName
        return Answer(head: response.head, body: body)
    }

    /// No body, no `100 Continue` to send, no connection header to honour, and no internal header a client
    /// sent (the router's front takes that off first).
    private func isBodiless(_ head: HTTPRequest) -> Bool {
        let fields = head.headerFields
        return fields[.contentLength] == nil && fields[.transferEncoding] == nil && fields[.expect] == nil
            && fields[.connection] == nil && fields[VirtualHost.header] == nil
    }

    /// The app a path-style media path names: `/{app}/{key...}` with a plain first segment that no other
    /// route takes; nil for anything the router might read another way (empty segments, escapes, a reserved
    /// or control prefix).
    private func mediaApp(of path: String) -> String? {
        let bytes = path.utf8
        let slashByte = UInt8(ascii: "/")
        guard bytes.first == slashByte, !BrowserPolicy.isControl(path: path)
        else { return nil }
        let rest = bytes.dropFirst()
        guard let slash = rest.firstIndex(of: slashByte), slash != rest.startIndex,
            bytes.index(after: slash) != bytes.endIndex,
            !rest[..<slash].contains(UInt8(ascii: "%"))
        else { return nil }
        // Empty segments, which the router skips, stay the router's. One pass over the bytes: a zip of the
        // path with itself was a hundredth of a read.
        guard bytes.last != slashByte, !Self.hasEmptySegment(bytes) else { return nil }
        let app = String(Substring(rest[..<slash]))
        return self.reserved.contains(app) ? nil : app
    }

    /// Whether a path holds `//`.
    private static func hasEmptySegment(_ bytes: String.UTF8View) -> Bool {
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == UInt8(ascii: "/") && previous == byte { return true }
            previous = byte
        }
        return false
    }
}
