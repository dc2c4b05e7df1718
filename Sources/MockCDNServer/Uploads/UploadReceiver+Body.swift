import Hummingbird
import MockCDNCore
import NIOCore
import Synchronization

extension UploadReceiver {
    /// Receives a raw request body (a presigned PUT) into `key` under the app's upload policy: size, sniffing
    /// and extensions as on the multipart routes, plus a stall timeout. Nothing stays stored when it throws,
    /// and an object already at `key` is replaced only by a complete new one.
    ///
    /// - Parameters:
    ///   - request: the PUT; `Content-Type` is the declared type, `Content-Length` is checked before reading.
    ///   - app: the app that receives the file.
    ///   - key: where it goes; its last segment is the file name the policy checks.
    ///   - bound: the most bytes the URL allows, when it names a limit below the app's.
    ///   - owner: the uploader, when the URL names one.
    ///   - stallTimeout: seconds without a byte after which the upload fails as stalled.
    /// - Returns: the stored object.
    /// - Throws: `UploadFailure` (`.tooLarge`, `.stalled`, `.input`...), or a storage error.
    func receiveBody(
        _ request: Request,
        app: MediaApp,
        key: ObjectKey,
        bound: Int?,
        owner: String?,
        stallTimeout: Int64
    ) async throws -> ObjectMetadata {
        let kind: UploadPolicy.Kind = key.rawValue.split(separator: "/").dropFirst().first == "images" ? .image : .file
        let config = try await self.state.uploadConfig(kind, app: app)
        let limit = min(bound ?? .max, UploadPolicy.sizeLimit(config))
        let length = request.headers[.contentLength].flatMap { Int($0) }
        if let length, length > limit { throw UploadFailure.tooLarge(limit: limit) }
        let epoch = self.epoch.current
        let fileName = key.rawValue.split(separator: "/").last.map(String.init)
        let watch = StallWatch(seconds: stallTimeout)
        do {
            let object = try await watch.run {
                try await self.store(
                    IncomingFile(name: fileName, declaredType: request.headers[.contentType]) { _ in key },
                    body: WatchedBody(
                        base: request.body.makeAsyncIterator(),
                        watch: watch,
                        expectedLength: length
                    ),
                    kind: kind,
                    owner: owner,
                    extras: [:],
                    config: config,
                    limit: limit
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

/// Fails an upload whose body stops: when no byte has arrived for the timeout, the work is cancelled and
/// `run` throws `UploadFailure.stalled`. Real time, not MockCDN's clock: a stall is the network's.
final class StallWatch: Sendable {
    let seconds: Int64
    /// When the last bytes arrived, in uptime nanoseconds.
    private let lastProgress = Atomic<UInt64>(0)

    init(seconds: Int64) {
        self.seconds = seconds
    }

    /// Bytes arrived.
    func progressed() {
        self.lastProgress.store(NIODeadline.now().uptimeNanoseconds, ordering: .relaxed)
    }

    /// Runs `work` while watching for a stall.
    func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        self.progressed()
        return try await withThrowingTaskGroup(of: T?.self) { group in
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

    /// Returns never: throws `UploadFailure.stalled` once bytes stop for the timeout, or on cancellation.
    private func watch() async throws {
        let timeout = UInt64(self.seconds) * 1_000_000_000
        while true {
            let idle = NIODeadline.now().uptimeNanoseconds &- self.lastProgress.load(ordering: .relaxed)
            if idle >= timeout { throw UploadFailure.stalled(seconds: self.seconds) }
            try await Task.sleep(for: .nanoseconds(Int64(timeout - idle)))
        }
    }
}

/// A request body read under a `StallWatch`: each chunk counts as progress; a body cut short (by a
/// cancellation, or before its `Content-Length`) throws instead of ending, so it is never stored as whole.
struct WatchedBody<Base: AsyncIteratorProtocol>: AsyncIteratorProtocol where Base.Element == ByteBuffer {
    var base: Base
    let watch: StallWatch
    let expectedLength: Int?
    var received = 0

    init(base: Base, watch: StallWatch, expectedLength: Int?) {
        self.base = base
        self.watch = watch
        self.expectedLength = expectedLength
    }

    mutating func next() async throws -> ByteBuffer? {
        let chunk = try await self.base.next()
        try Task.checkCancellation()
        guard let chunk else {
            if let expected = self.expectedLength, expected != self.received {
                throw UploadFailure.input("the body ended after \(self.received) of \(expected) bytes")
            }
            return nil
        }
        self.received += chunk.readableBytes
        self.watch.progressed()
        return chunk
    }
}
