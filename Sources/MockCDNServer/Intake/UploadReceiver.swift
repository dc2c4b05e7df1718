import Foundation
import Hummingbird
import MockCDNCore
import NIOCore
import Synchronization

/// Why an upload was refused, before any envelope: each API renders it by its category, CometChat's a stall
/// by its own code.
enum UploadFailure: CategorizedError {
    case input(String)
    /// The app's upload policy refused the file: its type or extension, or bytes that are no image on an
    /// image route.
    case refused(String)
    /// The file, or the whole body with its framing, passed `limit` bytes.
    case tooLarge(limit: Int)
    /// The store could not keep the file (disk full, I/O error): a server-side failure, 500.
    case storage(String)
    /// The upload cannot be kept now: the store is full (507) or the server was reset under it (503).
    case unavailable(String, status: HTTPResponse.Status)
    /// No byte of the body arrived for `seconds` (the stall timeout, on every upload route).
    case stalled(seconds: Int64)

    var category: ErrorCategory {
        switch self {
        case .input, .refused, .stalled: .invalidInput
        case .tooLarge: .tooLarge
        case .storage: .unavailable
        case .unavailable(_, let status): status.code == 507 ? .insufficientStorage : .unavailable
        }
    }

    var publicMessage: String {
        switch self {
        case .input(let message), .refused(let message), .storage(let message), .unavailable(let message, _): message
        case .tooLarge(let limit): "file is larger than the upload limit of \(limit) bytes"
        case .stalled(let seconds): "no bytes arrived for \(seconds) s; nothing was stored"
        }
    }
}

/// Receives a multipart/form-data upload for any of MockCDN's upload routes: applies the app's policy to
/// the `file` part's first bytes, streams it into the store under `{app}/{folder}/{uuid}/{name}`, and
/// collects the small named fields. Nothing stays stored when it throws.
struct UploadReceiver: Sendable {
    let store: any ObjectStore
    /// Where an upload's event is emitted once it is stored, and a discarded one's removal.
    let events: ObjectEvents
    /// The app's upload settings as `PATCH /app` left them.
    let state: any AppState
    let clock: MockClock
    /// Moves on at every reset: an upload that commits after one removes itself.
    let epoch: ResetEpoch
    /// Seconds a connection may sit idle before the server closes it.
    let idleTimeoutSeconds: Int
    /// Told the size of each chunk of a request body an upload route reads (framing included).
    let onBytesRead: @Sendable (Int) -> Void

    /// The stall timeout of `app`'s uploads: its `upload_stall_timeout`, held a second below the idle timeout,
    /// so that a client whose body stops (or falls short of its `Content-Length`) hears why, in the route's
    /// envelope, before the connection is closed.
    func stallTimeout(for app: MediaApp) -> Int64 {
        min(app.configuration.uploadStallTimeout, Int64(max(1, self.idleTimeoutSeconds - 1)))
    }

    /// Multipart framing allowed on top of the file size before Content-Length alone earns a 413.
    static let multipartAllowance = 64 * 1024
    /// The most bytes read from a non-file part.
    static let maximumFieldBytes = 64 * 1024

    struct Received: Sendable {
        let object: ObjectMetadata
        let key: ObjectKey
        /// The named fields that were sent, raw.
        let fields: [String: ByteBuffer]
    }

    /// Reads the whole upload.
    ///
    /// - Parameters:
    ///   - request: the multipart request.
    ///   - app: the app that receives the file.
    ///   - kind: image or file policy.
    ///   - folder: the key folder (`images`, `attachments`, `media`).
    ///   - fieldNames: the non-file parts to collect; other parts are read past.
    ///   - owner: the uploader, from the fields that came before the file part (Stream's `user`), or nil.
    ///   - extras: metadata stored with the object.
    /// - Returns: the stored object and the collected fields.
    /// - Throws: `UploadFailure`, or a storage error.
    func receive(
        _ request: Request,
        app: MediaApp,
        kind: UploadPolicy.Kind,
        folder: String,
        fieldNames: Set<String>,
        owner: @escaping @Sendable ([String: ByteBuffer]) throws -> String?,
        extras: [String: String]
    ) async throws -> Received {
        try Self.checkFraming(request)
        let config = try await self.state.uploadConfig(kind, app: app)
        let limit = UploadPolicy.sizeLimit(config)
        let length = request.headers[.contentLength].flatMap { Int($0) }
        if let length, length > limit + Self.multipartAllowance {
            throw UploadFailure.tooLarge(limit: limit)
        }
        guard let boundary = MultipartReader.boundary(contentType: request.headers[.contentType]) else {
            throw UploadFailure.input("Content-Type must be multipart/form-data with a boundary")
        }
        let epoch = self.epoch.current
        let watch = StallWatch(seconds: self.stallTimeout(for: app))
        let body = self.watchedBody(request, watch: watch)
        do {
            return try await watch.run {
                try await self.receiveParts(
                    MultipartReader(body: body, boundary: boundary, maximumBytes: limit + Self.multipartAllowance),
                    app: app,
                    kind: kind,
                    folder: folder,
                    fieldNames: fieldNames,
                    owner: owner,
                    extras: extras,
                    config: config,
                    limit: limit,
                    epoch: epoch
                )
            }
        } catch {
            throw Self.refusal(error, limit: limit)
        }
    }

    /// `receive`'s parts, read from `reader` under the stall watch.
    private func receiveParts(
        _ reader: MultipartReader,
        app: MediaApp,
        kind: UploadPolicy.Kind,
        folder: String,
        fieldNames: Set<String>,
        owner: @Sendable ([String: ByteBuffer]) throws -> String?,
        extras: [String: String],
        config: UploadConfig,
        limit: Int,
        epoch: Int
    ) async throws -> Received {
        var stored: ObjectMetadata?
        var fields: [String: ByteBuffer] = [:]
        do {
            while let next = try await reader.nextPart() {
                let part = next.headers
                var body = next.body
                if part.name == "file" {
                    guard stored == nil else { throw UploadFailure.input("only one file part is allowed") }
                    let upload = IncomingUpload(
                        name: part.fileName,
                        declaredType: part.contentType,
                        key: { fileName in
                            try ObjectKey("\(app.id)/\(folder)/\(UUID().uuidString.lowercased())/\(fileName)")
                        },
                        kind: kind,
                        config: config,
                        limit: limit,
                        owner: try owner(fields),
                        extras: extras
                    )
                    stored = try await self.store(upload, body: body)
                } else if let name = part.name, fieldNames.contains(name) {
                    fields[name] = try await Self.collectField(&body, name: name)
                } else {
                    // Parts MockCDN does not define are read past, not kept.
                    while try await body.next() != nil {}
                }
            }
            guard let object = stored else { throw UploadFailure.input("file is a required field") }
            let key = try ObjectKey(object.key)
            try self.checkEpoch(epoch)
            return Received(object: object, key: key, fields: fields)
        } catch {
            if let stored { await self.discard(stored) }
            throw error
        }
    }

    /// The request's body read under `watch`: each wait for bytes timed, a body cut short before its
    /// `Content-Length` refused, every chunk counted for `/metrics`.
    func watchedBody(_ request: Request, watch: StallWatch) -> RequestBody {
        RequestBody(
            asyncSequence: WatchedSequence(
                base: request.body,
                watch: watch,
                expectedLength: request.headers[.contentLength].flatMap { Int($0) },
                onBytes: self.onBytesRead
            )
        )
    }

    /// The policy a key is stored under: keys in an `images/` folder take images only, as the upload routes'
    /// image folder does; every other key takes files.
    static func kind(of key: ObjectKey) -> UploadPolicy.Kind {
        key.rawValue.split(separator: "/").dropFirst().first == "images" ? .image : .file
    }

    /// Refuses a body whose framing cannot hold what its head announces: trailers (`Trailer`) on a body sized
    /// by `Content-Length`, which ends with its last byte and has no place for them (only a chunked body
    /// carries trailers). The other framing errors are the HTTP parser's: inside a body they reach the
    /// route as `HTTPParserError`, in a head they never reach one (`FramingErrorJournal`).
    static func checkFraming(_ request: Request) throws {
        if let trailer = request.headers[.trailer], request.headers[.contentLength] != nil {
            throw UploadFailure.input(
                "the request announces trailers (Trailer: \(trailer.prefix(64))) on a body sized by Content-Length; "
                    + "only a chunked body carries trailers"
            )
        }
    }

    /// What a failed upload answers: store errors as `UploadFailure`s, any size overrun with the file limit.
    static func refusal(_ error: any Error, limit: Int) -> any Error {
        switch error {
        case let error as MockCDNError where error == .objectTooLarge: UploadFailure.tooLarge(limit: limit)
        case UploadFailure.tooLarge: UploadFailure.tooLarge(limit: limit)
        case let error as MockCDNError where error == .invalidObjectKey: UploadFailure.input(error.detail)
        case let error as MockCDNError where error == .storageFailure: UploadFailure.storage(error.detail)
        case let error as MockCDNError where error == .insufficientStorage:
            UploadFailure.unavailable(error.detail, status: HTTPResponse.Status(code: 507))
        default: error
        }
    }

    /// Refuses an upload that a reset overtook: the fresh state must not hold it.
    func checkEpoch(_ epoch: Int) throws {
        guard self.epoch.current == epoch else {
            throw UploadFailure.unavailable(
                "MockCDN was reset while this upload was in flight; send it again",
                status: .serviceUnavailable
            )
        }
    }

    /// Removes an object a request stored before it failed.
    func discard(_ object: ObjectMetadata) async {
        if let key = try? ObjectKey(object.key), (try? await self.store.delete(key)) == true {
            self.events.emit(.delete, key: key, object: nil)
        }
    }

    /// An upload about to stream in: what the client called the file and said it was, where it goes, the
    /// policy and bounds it is held to, and the last check before it is kept.
    struct IncomingUpload: Sendable {
        let name: String?
        let declaredType: String?
        /// The declared type is stored when the bytes show none, whatever it is (S3's rule,
        /// `UploadPolicy.storedType`); the upload routes store no image, audio, video, PDF or ZIP type then.
        var keepsDeclaredType = false
        /// The store key, from the sanitised file name.
        let key: @Sendable (String) throws -> ObjectKey
        /// Image or file policy.
        let kind: UploadPolicy.Kind
        /// The app's policy for `kind`.
        let config: UploadConfig
        /// The most bytes it may have.
        let limit: Int
        /// The uploader.
        var owner: String? = nil
        /// Metadata stored with the object.
        var extras: [String: String] = [:]
        /// An empty body is an empty object, typed as declared, instead of refused.
        var allowsEmpty = false
        /// Whether the store takes the body's SHA-256 (`.etagOnly`: `seal` gives the ETag).
        var digest: ObjectIntake.Digest = .sha256
        /// The last check before commit, with the body's size and digest; may add to the attributes.
        var seal: @Sendable (ObjectIntake.Summary, inout ObjectAttributes) async throws -> Void = { _, _ in }
        /// The event it emits once stored: `ObjectCreated:Put`, or the route's (`:Post`,
        /// `:CompleteMultipartUpload`).
        var event: ObjectEventName = .put
    }

    /// Sniffs the file's first bytes, applies the policy, then streams the rest into the store.
    ///
    /// - Parameters:
    ///   - upload: what it is, where it goes and what it is held to.
    ///   - body: its bytes, as they arrive.
    /// - Returns: the stored object.
    func store<Body: AsyncIteratorProtocol>(
        _ upload: IncomingUpload,
        body: Body
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer {
        var body = body
        var head = ByteBuffer()
        while head.readableBytes < MediaSniffer.prefixLength, var chunk = try await body.next() {
            head.writeBuffer(&chunk)
        }
        guard head.readableBytes > 0 || upload.allowsEmpty else { throw UploadFailure.input("file is empty") }
        let fileName = UploadPolicy.sanitizedFileName(upload.name ?? "file")
        let contentType: String
        if head.readableBytes == 0 {
            // No bytes to sniff, and none to run: the declared type stands.
            contentType = upload.declaredType ?? "application/octet-stream"
        } else {
            do {
                contentType = try UploadPolicy.contentType(
                    kind: upload.kind,
                    fileName: upload.name ?? fileName,
                    declaredType: upload.declaredType,
                    prefix: Array(head.readableBytesView.prefix(MediaSniffer.prefixLength)),
                    config: upload.config,
                    keepsDeclaredType: upload.keepsDeclaredType
                )
            } catch {
                throw UploadFailure.refused(error.message)
            }
        }
        let key = try upload.key(fileName)
        var extras = upload.extras
        extras["original_name"] = String((upload.name ?? fileName).prefix(256))
        extras["uploaded_at"] = String(self.clock.now.timeIntervalSince1970)
        let created = self.clock.now
        // An image's header is read from the bytes as they stream past, so its size is committed with it,
        // in one metadata write: the first MiB holds every header but GIF's frame count, which needs the file.
        let format = ImageFormat(mimeType: contentType).flatMap { $0 == .svg ? nil : $0 }
        let tap = format.map {
            ProbeTap(limit: $0 == .gif ? ImageProbe.wholeBytes : ImageProbe.prefixBytes)
        }
        let tapped = TappedBody(base: ResumedBody(head: head, rest: body), tap: tap)
        let stored = try await self.store.put(key, body: tapped, maxBytes: upload.limit, digest: upload.digest) {
            summary in
            var attributes = ObjectAttributes(
                contentType: contentType,
                owner: upload.owner,
                extras: extras,
                created: created
            )
            try await upload.seal(summary, &attributes)
            guard let tap, let format else { return attributes }
            let prefix = tap.bytes
            if let header = try await ImageProbe.header(of: prefix, as: format) {
                attributes.extras.merge(header.extras) { _, new in new }
            } else if upload.kind == .image {
                // Bytes libvips cannot read are refused on the image routes, and stored as they are elsewhere.
                throw UploadFailure.refused("file is not a readable image")
            }
            return attributes
        }
        // The event stage: the route's event, once the object is kept.
        self.events.emit(upload.event, key: key, object: stored)
        return stored
    }

    private static func collectField(
        _ body: inout MultipartPartBody.AsyncIterator,
        name: String
    ) async throws -> ByteBuffer {
        var value = ByteBuffer()
        while var chunk = try await body.next() {
            guard value.readableBytes + chunk.readableBytes <= maximumFieldBytes else {
                throw UploadFailure.input("\(name) field is larger than \(maximumFieldBytes) bytes")
            }
            value.writeBuffer(&chunk)
        }
        return value
    }
}

/// The first bytes of an upload, kept as they stream past for its header probe.
final class ProbeTap: Sendable {
    private let buffer = Mutex(ByteBuffer())
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    func take(_ chunk: ByteBuffer) {
        self.buffer.withLock { buffer in
            let room = self.limit - buffer.readableBytes
            guard room > 0 else { return }
            var piece = chunk.getSlice(at: chunk.readerIndex, length: min(room, chunk.readableBytes))!
            buffer.writeBuffer(&piece)
        }
    }

    var bytes: ByteBuffer { self.buffer.withLock { $0 } }
}

/// A body that shows each chunk to a tap on its way to the store.
struct TappedBody<Base: AsyncSequence>: AsyncSequence where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    let base: Base
    let tap: ProbeTap?

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let tap: ProbeTap?

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await self.base.next() else { return nil }
            self.tap?.take(chunk)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: self.base.makeAsyncIterator(), tap: self.tap) }
}
