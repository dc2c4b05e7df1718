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

extension UploadReceiver {
    /// Receives a raw request body (a presigned or S3 PUT) into `key` under the app's upload policy: size,
    /// sniffing and extensions as on the multipart routes, plus a stall timeout. Nothing stays stored when it
    /// throws, and an object already at `key` is replaced only by a complete new one.
    ///
    /// - Parameters:
    ///   - request: the PUT; `Content-Type` is the declared type, `Content-Length` is checked before reading.
    ///   - app: the app that receives the file.
    ///   - key: where it goes; its last segment is the file name the policy checks.
    ///   - upload: the URL's bound and owner, metadata, and the check before commit.
    ///   - decode: the object's bytes from the body as it arrives on the wire (the identity for a plain
    ///     body; aws-chunked framing removed and checksums taken for an S3 PUT).
    /// - Returns: the stored object.
    /// - Throws: `UploadFailure` (`.tooLarge`, `.stalled`, `.input`...), what `decode`'s sequence or
    ///   `upload.seal` throws, or a storage error.
    func receiveBody<Body: AsyncSequence & Sendable>(
        _ request: Request,
        app: MediaApp,
        key: ObjectKey,
        upload: RawUpload,
        decode: (WatchedSequence) throws -> Body
    ) async throws -> ObjectMetadata where Body.Element == ByteBuffer {
        try Self.checkFraming(request)
        let (kind, config, policyLimit) = try await self.policy(for: key, app: app)
        let limit = min(upload.bound ?? .max, upload.limit ?? policyLimit)
        let length = request.headers[.contentLength].flatMap { Int($0) }
        if let declared = upload.declaredLength ?? length, declared > limit {
            throw UploadFailure.tooLarge(limit: limit)
        }
        let epoch = self.epoch.current
        let fileName = key.rawValue.split(separator: "/").last.map(String.init)
        let watch = StallWatch(seconds: self.stallTimeout(for: app))
        let body = try decode(
            WatchedSequence(base: request.body, watch: watch, expectedLength: length, onBytes: self.onBytesRead)
        )
        do {
            let object = try await watch.run {
                try await self.store(
                    IncomingUpload(
                        name: fileName,
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
                    ),
                    body: body.makeAsyncIterator()
                )
            }
            do {
                try self.checkEpoch(epoch)
            } catch {
                await self.discard(object)
                throw error
            }
            return object
        } catch {
            throw Self.refusal(error, limit: limit)
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
