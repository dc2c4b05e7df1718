import Hummingbird
import MockCDNCore
import NIOCore
import Synchronization

/// How a raw request body (a PUT) is taken in, beyond the app's upload policy.
struct RawUpload: Sendable {
    /// The most bytes the URL allows, when it names a limit below the app's.
    var bound: Int?
    /// The size limit in place of the app's upload policy's, when another rule sets it (`S3Limits`).
    var limit: Int?
    /// The uploader, when the URL names one.
    var owner: String?
    /// Metadata stored with the object (an S3 PUT's headers).
    var extras: [String: String] = [:]
    /// An empty body is stored as an empty object (S3) instead of refused (MockCDN's upload URLs).
    var allowsEmpty = false
    /// The declared `Content-Type` is stored when the bytes show no type, whatever it is (S3), instead of
    /// `application/octet-stream` for an image, audio, video, PDF or ZIP type (MockCDN's upload URLs).
    var keepsDeclaredType = false
    /// The object's length when the body's framing hides it (`x-amz-decoded-content-length` under
    /// aws-chunked): checked against the limit before any byte is read. Nil: `Content-Length`.
    var declaredLength: Int?
    /// Whether the store takes the body's SHA-256 (`.etagOnly`: `seal` gives the ETag).
    var digest: ObjectIntake.Digest = .sha256
    /// Runs once the whole body arrived and before the object is committed, with its size and SHA-256: may
    /// refuse it (a payload hash or checksum that does not match) and add to what is stored.
    var seal: @Sendable (ObjectIntake.Summary, inout ObjectAttributes) async throws -> Void = { _, _ in }
}

/// A request body let onto the upload path (the admission stage): its framing checked, its declared length
/// within the limit, and its bytes read under a stall watch. The route decodes `wire` (aws-chunked framing off,
/// digests taken) or takes it as it is, and hands the result to `keep` or `keepPiece`.
struct AdmittedBody: Sendable {
    /// The body as it arrives on the wire: each wait for bytes timed, a body cut short refused.
    let wire: WatchedSequence
    /// The most bytes the object (or piece) may have.
    let limit: Int
    /// The reset epoch at admission: an object a reset overtook is removed again.
    let epoch: Int
}

extension UploadReceiver {
    /// The admission stage of a raw body (a presigned or S3 PUT) into `key`: the app's upload policy and its
    /// limit (or the URL's bound, or the rule `upload.limit` names), then `admitPiece`'s checks.
    ///
    /// - Parameters:
    ///   - request: the PUT; `Content-Type` is the declared type, `Content-Length` is checked before reading.
    ///   - app: the app that receives the file.
    ///   - key: where it goes; its last segment is the file name the policy checks.
    ///   - upload: the URL's bound and owner, metadata, and the check before commit.
    /// - Returns: the admitted body, and the upload the store stage keeps.
    /// - Throws: `UploadFailure` (`.tooLarge` by the declared length, `.input` for framing).
    func admit(
        _ request: Request,
        app: MediaApp,
        key: ObjectKey,
        upload: RawUpload
    ) async throws -> (AdmittedBody, IncomingUpload) {
        let (kind, config, policyLimit) = try await self.policy(for: key, app: app)
        let limit = min(upload.bound ?? .max, upload.limit ?? policyLimit)
        let admitted = try self.admitPiece(request, app: app, limit: limit, declaredLength: upload.declaredLength)
        let incoming = IncomingUpload(
            name: key.rawValue.split(separator: "/").last.map(String.init),
            declaredType: request.headers[.contentType],
            keepsDeclaredType: upload.keepsDeclaredType,
            key: { _ in key },
            kind: kind,
            config: config,
            limit: limit,
            owner: upload.owner,
            extras: upload.extras,
            allowsEmpty: upload.allowsEmpty,
            digest: upload.digest,
            seal: upload.seal
        )
        return (admitted, incoming)
    }

    /// The admission stage of a body that is one piece of a file (an S3 part), or of any raw body once its
    /// limit is known: the framing, the declared length against `limit` before a byte is read, the stall watch.
    ///
    /// - Parameters:
    ///   - request: the PUT.
    ///   - app: the app that receives it (its stall timeout).
    ///   - limit: the most bytes it may have.
    ///   - declaredLength: its length when the framing hides it (aws-chunked); nil: `Content-Length`.
    /// - Throws: `UploadFailure` (`.tooLarge`, `.input`).
    func admitPiece(_ request: Request, app: MediaApp, limit: Int, declaredLength: Int?) throws -> AdmittedBody {
        try Self.checkFraming(request)
        let length = request.headers[.contentLength].flatMap { Int($0) }
        if let declared = declaredLength ?? length, declared > limit {
            throw UploadFailure.tooLarge(limit: limit)
        }
        let watch = StallWatch(seconds: self.stallTimeout(for: app))
        return AdmittedBody(
            wire: WatchedSequence(base: request.body, watch: watch, expectedLength: length, onBytes: self.onBytesRead),
            limit: limit,
            epoch: self.epoch.current
        )
    }

    /// The store stage of an admitted raw body, decoded by its route: `store` under the app's upload policy
    /// (sniffing, the seal, the event), under the stall watch. Nothing stays stored when it throws, and an
    /// object already at the key is replaced only by a complete new one.
    ///
    /// - Parameters:
    ///   - upload: what `admit` made of it.
    ///   - body: the object's bytes, as the route decoded them from `admitted.wire`.
    ///   - admitted: the admission.
    /// - Returns: the stored object.
    /// - Throws: `UploadFailure` (`.tooLarge`, `.stalled`, `.input`, `.unavailable` after a reset), what the
    ///   body or the seal throws, or a storage error.
    func keep<Body: AsyncSequence & Sendable>(
        _ upload: IncomingUpload,
        body: Body,
        admitted: AdmittedBody
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer {
        try await self.watched(admitted) { try await self.store(upload, body: body.makeAsyncIterator()) }
    }

    /// The store stage of an admitted piece: its bytes into `storeKey` as they are (no policy: it meets the
    /// object's when the pieces are joined), the seal before the commit, no event.
    ///
    /// - Parameters:
    ///   - body: the piece's bytes, as the route decoded them from `admitted.wire`.
    ///   - storeKey: where the piece is kept.
    ///   - admitted: the admission.
    ///   - digest: whether the store takes the body's SHA-256.
    ///   - seal: the last check before the commit; may add to the attributes (the piece's ETag).
    /// - Returns: the stored piece.
    /// - Throws: as `keep`.
    func keepPiece<Body: AsyncSequence & Sendable>(
        _ body: Body,
        at storeKey: ObjectKey,
        admitted: AdmittedBody,
        digest: ObjectIntake.Digest,
        seal: @escaping @Sendable (ObjectIntake.Summary, inout ObjectAttributes) throws -> Void
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer {
        let (store, clock) = (self.store, self.clock)
        return try await self.watched(admitted) {
            try await store.put(storeKey, body: body, maxBytes: admitted.limit, digest: digest) { summary in
                var attributes = ObjectAttributes(contentType: "application/octet-stream", created: clock.now)
                try seal(summary, &attributes)
                return attributes
            }
        }
    }

    /// Runs a store stage under the admission's stall watch; an object a reset overtook is removed, and a
    /// failure is answered as an upload's (`refusal`).
    private func watched(
        _ admitted: AdmittedBody,
        _ work: @escaping @Sendable () async throws -> ObjectMetadata
    ) async throws -> ObjectMetadata {
        do {
            let object = try await admitted.wire.watch.run(work)
            do {
                try self.checkEpoch(admitted.epoch)
            } catch {
                await self.discard(object)
                throw error
            }
            return object
        } catch {
            throw Self.refusal(error, limit: admitted.limit)
        }
    }
}

/// The time a `StallWatch` reads and waits on: the system's monotonic clock in the server, a clock the test
/// moves in tests (so a stall test never waits on real time).
struct StallClock: Sendable {
    /// Now, in nanoseconds of a monotonic clock.
    let now: @Sendable () -> UInt64
    /// Waits `nanoseconds`; throws on cancellation.
    let sleep: @Sendable (_ nanoseconds: UInt64) async throws -> Void

    /// NIO's uptime clock and `Task.sleep`.
    static let system = StallClock(
        now: { NIODeadline.now().uptimeNanoseconds },
        sleep: { try await Task.sleep(for: .nanoseconds(Int64(clamping: $0))) }
    )
}

/// Fails an upload whose body stops: when a read of the body has waited the timeout for its next bytes, the
/// work is cancelled and `run` throws `UploadFailure.stalled`. Only time spent waiting on the client counts:
/// storing, sniffing and checking (which a loaded machine or a slow store may stretch) never do, nor does
/// anything after the body has ended. Real time, not MockCDN's clock: a stall is the network's.
final class StallWatch: Sendable {
    let seconds: Int64
    let clock: StallClock
    /// Since when a read has been waiting for body bytes, in the clock's nanoseconds; 0 while none waits.
    private let waitingSince = Atomic<UInt64>(0)

    init(seconds: Int64, clock: StallClock = .system) {
        self.seconds = seconds
        self.clock = clock
    }

    /// A read of the body starts waiting for bytes.
    func waiting() {
        self.waitingSince.store(max(self.clock.now(), 1), ordering: .relaxed)
    }

    /// The read returned: bytes, or the body's end.
    func answered() {
        self.waitingSince.store(0, ordering: .relaxed)
    }

    /// Runs `work` while watching for a stall.
    func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await self.watch()
                return nil
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw CancellationError()
        }
    }

    /// Returns never: throws `UploadFailure.stalled` once a read has waited the timeout, or on cancellation.
    private func watch() async throws {
        let timeout = UInt64(self.seconds) * 1_000_000_000
        while true {
            let since = self.waitingSince.load(ordering: .relaxed)
            let waited = since == 0 ? 0 : self.clock.now() &- since
            if since != 0, waited >= timeout { throw UploadFailure.stalled(seconds: self.seconds) }
            try await self.clock.sleep(timeout - waited)
        }
    }
}

/// A request body under a `StallWatch`, as a sequence (for `RequestBody`).
struct WatchedSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let watch: StallWatch
    let expectedLength: Int?
    let onBytes: @Sendable (Int) -> Void

    func makeAsyncIterator() -> WatchedBody<RequestBody.AsyncIterator> {
        WatchedBody(
            base: self.base.makeAsyncIterator(),
            watch: self.watch,
            expectedLength: self.expectedLength,
            onBytes: self.onBytes
        )
    }
}

/// A request body read under a `StallWatch`, which times each wait for bytes; a body cut short (by a
/// cancellation, or before its `Content-Length`) throws instead of ending, so it is never stored as whole.
struct WatchedBody<Base: AsyncIteratorProtocol>: AsyncIteratorProtocol where Base.Element == ByteBuffer {
    var base: Base
    let watch: StallWatch
    let expectedLength: Int?
    /// Told the size of each chunk read (the upload bytes in `/metrics`).
    let onBytes: @Sendable (Int) -> Void
    var received = 0

    init(base: Base, watch: StallWatch, expectedLength: Int?, onBytes: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.base = base
        self.watch = watch
        self.expectedLength = expectedLength
        self.onBytes = onBytes
    }

    mutating func next() async throws -> ByteBuffer? {
        self.watch.waiting()
        let chunk = try await self.base.next()
        self.watch.answered()
        try Task.checkCancellation()
        guard let chunk else {
            if let expected = self.expectedLength, expected != self.received {
                throw UploadFailure.input("the body ended after \(self.received) of \(expected) bytes")
            }
            return nil
        }
        self.received += chunk.readableBytes
        self.onBytes(chunk.readableBytes)
        return chunk
    }
}
