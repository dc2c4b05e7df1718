import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore
import NIOPosix

/// Media reads: `GET|HEAD /{app}/{key}`, authorised by a FAT, a SigV4 presigned query or a CloudFront
/// signature (`MediaReadAuthorizer`), with RFC 9110 ranges and conditional requests, and S3's reads of one part
/// (`?partNumber=N`, `PartRead`), streamed from the store.
struct CDNController {
    let apps: AppRegistry
    let store: any ObjectStore
    let variants: VariantCache
    /// GETs another surface answers, by a parameter of their query (S3's ListParts).
    let handoffs: [QueryHandoff]
    /// Told how long each render took (the metrics' resize histogram).
    let onRender: @Sendable (Duration) -> Void
    let authorizer: MediaReadAuthorizer

    static let cacheControl = "public, max-age=86400"

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get(":app/**") { request, context in
            let query = context.query(of: request)
            if let handoff = self.handoffs.first(where: { $0.claims(query, headers: request.headers) }) {
                return try await handoff.answer(request, context)
            }
            return try await self.read(request, context: context)
        }
        router.head(":app/**") { request, context in
            // HEAD of a sub-resource is its GET without the body (NIO sends none), never a read of the object.
            let query = context.query(of: request)
            if let handoff = self.handoffs.first(where: { $0.claims(query, headers: request.headers) }) {
                return try await handoff.answer(request, context)
            }
            return try await self.read(request, context: context)
        }
    }

    func read(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try context.parameters.require("app")
        guard let app = try await self.apps.app(refreshing: appID) else { throw S3Error.noSuchApp() }
        let key = try ObjectKey(app: appID, percentEncodedPath: request.uri.path)
        let query = context.query(of: request)
        let credential: CredentialSource
        do {
            credential = try self.authorizer.authorize(request, context: context, app: app, key: key, query: query)
        } catch let refusal as S3Error where refusal.status == .unauthorized {
            guard Self.readsWithoutCredential(refusal, object: try await self.store.metadata(for: key)) else {
                throw refusal
            }
            credential = .none
        }
        return try await CredentialNote.answer(authorisedBy: credential, request: request, context: context) {
            do {
                return try await self.serve(request, context: context, app: app, key: key, query: query)
            } catch let error as MockCDNError where error == .objectNotFound {
                // The metadata named bytes that are gone: another instance on a shared bucket deleted or
                // replaced the object since it was read. The store has dropped what it knew, so a second try
                // reads it afresh and answers the new object, or 404.
                return try await self.serve(request, context: context, app: app, key: key, query: query)
            }
        }
    }

    /// Whether a read refused for carrying no credential at all goes ahead without one: S3 serves an object whose
    /// ACL lets everyone read it (`public-read`) to an anonymous GET or HEAD. A credential that failed is refused
    /// whatever the ACL, as on S3. The route's rule and the fast path's (`FastReads`).
    ///
    /// - Parameters:
    ///   - refusal: what `MediaReadAuthorizer.authorize` threw.
    ///   - object: the object read, nil when there is none.
    /// - Returns: true to serve the read, its credential `none`.
    static func readsWithoutCredential(_ refusal: any Error, object: ObjectMetadata?) -> Bool {
        guard let refusal = refusal as? S3Error, refusal.status == .unauthorized, let object else { return false }
        return ObjectACL(of: object).allowsPublicRead
    }

    /// The object, a range or a part of it, or a variant of it, once a credential authorised the read.
    private func serve(
        _ request: Request,
        context: AppRequestContext,
        app: MediaApp,
        key: ObjectKey,
        query: QueryItems
    ) async throws -> Response {
        let part = try PartRead.requested(request, query: query)
        // An object held in memory is answered from its bytes in one write (head, body and end together);
        // one on disk streams.
        let resident = try await self.store.resident(key)
        let found: ObjectMetadata?
        if let resident {
            found = resident.metadata
        } else {
            found = try await self.store.metadata(for: key)
        }
        guard let metadata = found else { throw S3Error.noSuchKey() }
        if let transform = try Self.transform(in: query, of: metadata) {
            let variant: ImageVariant
            var closes = false
            if let cached = self.variants.cached(
                VariantCache.Key(object: key.rawValue, etag: metadata.etag, transform: transform)
            ) {
                variant = cached
            } else {
                // A render is cancelled when its client goes away (the connection closes after the answer).
                variant = try await request.body.consumeWithCancellationOnInboundClose { _ in
                    try await self.variant(
                        of: metadata,
                        key: key,
                        source: resident?.bytes,
                        app: app,
                        transform: transform
                    )
                }
                closes = true
            }
            var response = try Self.answer(
                request,
                query: query,
                app: app,
                metadata: metadata,
                part: part,
                variant: variant
            ) { ResponseBody(byteBuffer: Self.slice(variant.bytes, $0)) }
            // Watching for the client to leave reads the connection past this request, so it cannot carry
            // another: say so, and a keep-alive client opens a new one instead of finding this one gone.
            if closes { response.headers[.connection] = "close" }
            return response
        }
        // The range a body of bytes not held in memory is wanted for, once the answer has decided it.
        var streamed: Range<Int>?? = nil
        var response = try Self.original(request, query: query, app: app, metadata: metadata, part: part) { range in
            if let bytes = resident?.bytes { return ResponseBody(byteBuffer: Self.slice(bytes, range)) }
            streamed = .some(range)
            return ResponseBody()
        }
        if case .some(let range) = streamed {
            // Opened before the answer's head goes out, so that bytes found gone are a 404, not a cut answer.
            let opened = try await self.store.open(key, range: range)
            response.body = ResponseBody(contentLength: range?.count ?? metadata.size) { writer in
                try await opened.read { chunk in try await writer.write(chunk) }
                try await writer.finish(nil)
            }
        }
        return response
    }

    /// The answer to a read of the object itself (no variant), once a credential authorised it: the route's
    /// and the fast path's (`FastReads`), which hands in the bytes it holds.
    ///
    /// - Parameters:
    ///   - part: the part a `?partNumber=` read asks for.
    ///   - body: the body of the bytes in `range` (nil: all of them); not called for an answer without one.
    /// - Returns: the answer.
    /// - Throws: `S3Error` 412 for a failed precondition, 416 for an unsatisfiable range, 400 for a bad part.
    static func original(
        _ request: Request,
        query: QueryItems,
        app: MediaApp,
        metadata: ObjectMetadata,
        part: PartRead?,
        body: (Range<Int>?) -> ResponseBody
    ) throws -> Response {
        let checksums =
            request.headers[Self.checksumMode]?.uppercased() == "ENABLED"
            ? ObjectHeaders.checksumHeaders(of: metadata) : [:]
        return try Self.respond(
            to: request,
            query: query,
            app: app,
            stored: ObjectHeaders.headers(of: metadata),
            ofWhole: checksums,
            part: part.map { ($0, ObjectParts(of: metadata)) },
            contentType: metadata.contentType,
            etag: metadata.etag,
            lastModified: metadata.created,
            size: metadata.size,
            body: body
        )
    }

    /// The transform a read's query asks of the object, when a variant answers it: nil for none, for one that
    /// changes nothing, and for SVG, which is never rasterised (the original answers, unchanged). The route's
    /// and the fast path's.
    ///
    /// - Throws: `S3Error` 400 for bad transform parameters, or for a transform of an object that is no image.
    static func transform(in query: QueryItems, of metadata: ObjectMetadata) throws -> ImageTransform? {
        guard let transform = try ImageTransform.parse(query.decoded), !transform.isIdentity,
            metadata.contentType != ImageFormat.svg.mimeType
        else { return nil }
        guard metadata.contentType.hasPrefix("image/") else {
            throw S3Error(
                status: .badRequest,
                code: "InvalidArgument",
                message: "Transform parameters (w, h, resize, crop) apply to images; this object is "
                    + metadata.contentType
            )
        }
        return transform
    }

    /// The answer to a read of a variant of the object, once a credential authorised it: the route's and the
    /// fast path's (`FastReads`, for a variant the cache holds in memory).
    ///
    /// - Parameters:
    ///   - part: the part a `?partNumber=` read asks for.
    ///   - variant: the variant.
    ///   - body: the body of the variant's bytes in `range` (nil: all of them); not called for an answer
    ///     without one.
    /// - Returns: the answer.
    /// - Throws: `S3Error` 412 for a failed precondition, 416 for an unsatisfiable range, 400 for a bad part.
    static func answer(
        _ request: Request,
        query: QueryItems,
        app: MediaApp,
        metadata: ObjectMetadata,
        part: PartRead?,
        variant: ImageVariant,
        body: (Range<Int>?) -> ResponseBody
    ) throws -> Response {
        try Self.respond(
            to: request,
            query: query,
            app: app,
            stored: [:],
            part: part.map { ($0, nil) },
            contentType: variant.contentType,
            etag: variant.etag,
            lastModified: metadata.created,
            size: variant.bytes.readableBytes,
            body: body
        )
    }

    /// The bytes of `range` (nil: all) of an object held in memory; a slice, nothing copied.
    static func slice(_ bytes: ByteBuffer, _ range: Range<Int>?) -> ByteBuffer {
        range.map { bytes.getSlice(at: bytes.readerIndex + $0.lowerBound, length: $0.count)! } ?? bytes
    }

    /// The header a read sends to be told the stored checksum.
    static let checksumMode = HTTPField.Name("x-amz-checksum-mode")!

    /// Answers a read of one representation (the object, or a variant of it): conditionals (412, 304), one
    /// range or one part (206) or the whole (200), and for HEAD the headers alone. The headers stored with the
    /// object come first, then the `response-*` overrides of the query; active content stays sandboxed whatever
    /// either says.
    ///
    /// - Parameters:
    ///   - stored: the headers stored with the representation.
    ///   - ofWhole: headers that describe all of its bytes (the checksum): sent only when all of them are, as
    ///     S3 leaves a stored checksum out of a ranged read (a client would check it against the range).
    ///   - part: the part a `?partNumber=` read asks for, with the representation's parts (nil: one part).
    private static func respond(
        to request: Request,
        query: QueryItems,
        app: MediaApp,
        stored: HTTPFields,
        ofWhole: HTTPFields = [:],
        part: (read: PartRead, parts: ObjectParts?)?,
        contentType: String,
        etag: String,
        lastModified: Date,
        size: Int,
        body: (Range<Int>?) -> ResponseBody
    ) throws -> Response {
        var headers: HTTPFields = [
            .contentType: contentType,
            .eTag: etag,
            .lastModified: HTTPDate.format(lastModified),
            .acceptRanges: "bytes",
            .cacheControl: Self.cacheControl,
        ]
        for field in stored { headers[field.name] = field.value }
        for (parameter, header) in ObjectHeaders.overrides {
            if let value = query.first(parameter) { headers[header] = value }
        }
        if MediaType.isActive(headers[.contentType] ?? contentType), !app.configuration.inlineActiveContent {
            // Uploaded HTML, SVG, XML or script must not run on MockCDN's origin: a sandbox without
            // allow-scripts gives the document an opaque origin and no script, and a download is not rendered.
            headers[.contentSecurityPolicy] = "sandbox"
            headers[.contentDisposition] = "attachment"
        }
        let outcome = ConditionalRequest.evaluate(
            ifMatch: request.headers[.ifMatch],
            ifUnmodifiedSince: request.headers[.ifUnmodifiedSince],
            ifNoneMatch: request.headers[.ifNoneMatch],
            ifModifiedSince: request.headers[.ifModifiedSince],
            ifRange: request.headers[.ifRange],
            etag: etag,
            lastModified: lastModified
        )
        let honourRange: Bool
        switch outcome {
        case .serve(let honour): honourRange = honour
        case .notModified:
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        case .preconditionFailed:
            throw S3Error.preconditionFailed(
                condition: request.headers[.ifMatch] != nil ? "If-Match" : "If-Unmodified-Since"
            )
        }
        var range: Range<Int>? = nil
        if let part {
            // A read of one part is a ranged read of its bytes (If-Range governs a Range header, and there is
            // none); the ETag stays the whole object's.
            range = try part.read.bytes(size: size, parts: part.parts)
            if let parts = part.parts { headers[PartRead.partsCountHeader] = String(parts.sizes.count) }
        } else if honourRange {
            switch RangeRequest.parse(request.headers[.range], size: size) {
            case .whole, .multiple: break
            case .unsatisfiable: throw S3Error.invalidRange(size: size)
            case .partial(let bytes): range = bytes
            }
        }
        var status = HTTPResponse.Status.ok
        if let bytes = range, !bytes.isEmpty {
            // An empty part has no range to name: it is answered 200 with no bytes.
            status = .partialContent
            headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/\(size)"
        }
        if range == nil || range == 0..<size {
            for field in ofWhole { headers[field.name] = field.value }
        }
        headers[.contentLength] = String(range?.count ?? size)
        guard request.method != .head else { return Response(status: status, headers: headers) }
        guard range?.isEmpty != true else { return Response(status: status, headers: headers) }
        return Response(status: status, headers: headers, body: body(range))
    }

    /// The variant for `transform`, from the cache or made now (off the event loop). The pixel bounds on
    /// source and output are checked from the dimensions stored at upload before the source is read, and
    /// again from the source's own header before libvips decodes it. Only the decoder of the format the
    /// bytes showed at upload reads them. `source` is the object's bytes when the store holds them in memory
    /// (read with `metadata`); otherwise they are read from the store.
    private func variant(
        of metadata: ObjectMetadata,
        key: ObjectKey,
        source resident: ByteBuffer?,
        app: MediaApp,
        transform: ImageTransform
    ) async throws -> ImageVariant {
        let store = self.store
        let onRender = self.onRender
        let limit = app.configuration.maximumSourcePixels
        guard let format = ImageFormat(mimeType: metadata.contentType) else {
            throw TransformRefusal(kind: .invalid, message: "This image format is served as is, never resized")
        }
        // Without libvips nothing can be rendered: 503, naming the missing module, before any other check.
        try await ImageWorkers.shared.requireSupport()
        if let stored = ImageHeader(extras: metadata.extras) {
            try VariantRenderer.checkPixels(stored, maximumPixels: limit)
            try VariantRenderer.checkOutput(stored, transform: transform, maximumPixels: limit)
        }
        return try await self.variants.variant(
            VariantCache.Key(object: key.rawValue, etag: metadata.etag, transform: transform)
        ) {
            let workers = ImageWorkers.shared
            // A slot first, then the source: at most `renderThreads` sources are buffered at once.
            return try await workers.sourceSlots.withPermit {
                let started = ContinuousClock.now
                defer { onRender(.now - started) }
                let source: ByteBuffer
                if let resident {
                    source = resident
                } else {
                    source = try await store.collect(key)
                }
                let control = Vips.RenderControl(seconds: ImageWorkers.renderSeconds)
                return try await withTaskCancellationHandler {
                    try await workers.renders.runIfActive {
                        let header: ImageHeader
                        do {
                            header = try workers.engine.probe(source, as: format)
                        } catch {
                            throw TransformRefusal(
                                kind: .unprocessable,
                                message: "The image's header cannot be read"
                            )
                        }
                        return try VariantRenderer.render(
                            source,
                            header: header,
                            format: format,
                            transform: transform,
                            maximumPixels: limit,
                            control: control,
                            engine: workers.engine
                        )
                    }
                } onCancel: {
                    control.cancel()
                }
            }
        }
    }
}
