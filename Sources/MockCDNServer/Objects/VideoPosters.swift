import Foundation
import MockCDNCore
import NIOCore
import NIOPosix

/// Video posters: made with ffmpeg when a video is stored, deleted with it.
struct VideoPosters: Sendable {
    let store: any ObjectStore
    let clock: MockClock
    /// Moves on at every reset: a poster finished after one is not kept.
    let epoch: ResetEpoch
    /// The start of the temporary folders' names of the server this service belongs to (the process id, and
    /// its reset epoch's identity), so what one server leaves behind can be told from what others on the
    /// machine make at the same time.
    var temporaryPrefix: String {
        "mockcdn-poster-\(getpid())-\(UInt(bitPattern: ObjectIdentifier(self.epoch).hashValue))-"
    }

    /// Posters made at once. Each is an ffmpeg process of 60 to 90 MiB resident for up to `posterTimeLimit`;
    /// more uploads wait for a slot rather than start more of them on two cores.
    static let posterSlots = AsyncSemaphore(permits: 2)
    /// The longest side of a stored poster; `thumb_url` and other sizes are resizes of it on read.
    static let posterSide = 1024
    static let posterTimeLimit = Duration.seconds(10)

    /// Makes a poster JPEG of a stored video (MP4, QuickTime, WebM or Matroska), stores it, and links the video
    /// to it.
    ///
    /// The poster is stored at `{app}/thumbnails/{uuid}/{name}.jpg`, where `{name}` is the video key's last
    /// segment (already sanitised at upload), with the video's owner, `width`/`height`/`frames` like any
    /// image, `original_name` and `poster_of` (the video's key); it has no `channel`, so channel listings
    /// never show it. The video gets an extra `poster` naming the poster's key (a poster it had before is
    /// deleted), which `deletePoster(of:)` follows. The bytes are copied to a temporary file only ffmpeg
    /// reads, removed afterwards.
    ///
    /// - Parameters:
    ///   - object: the stored video.
    ///   - key: its key.
    /// - Returns: the poster's metadata; nil when the type is not a video posters are made for, ffmpeg cannot
    ///   make one (an undecodable video still uploads, without a poster), storage fails, the video was
    ///   deleted meanwhile, or a reset happened meanwhile (then nothing is kept).
    func storePoster(for object: ObjectMetadata, key: ObjectKey) async -> ObjectMetadata? {
        guard let container = VideoPoster.Container(contentType: object.contentType) else { return nil }
        let epoch = self.epoch.current
        guard
            let jpeg = try? await Self.posterSlots.withPermit({
                try await self.withTemporaryCopy(of: key) { path in
                    try await VideoPoster.poster(
                        ofFileAt: path,
                        container: container,
                        maximumSide: Self.posterSide,
                        timeLimit: Self.posterTimeLimit
                    )
                }
            }),
            let header = try? await ImageProbe.header(of: jpeg, as: .jpeg)
        else {
            return nil
        }
        let segments = key.rawValue.split(separator: "/")
        let name = UploadPolicy.sanitizedFileName(String(segments.last ?? "video") + ".jpg")
        guard segments.count > 1,
            let posterKey = try? ObjectKey("\(segments[0])/thumbnails/\(UUID().uuidString.lowercased())/\(name)")
        else { return nil }
        var extras = header.extras
        extras["original_name"] = name
        extras["poster_of"] = key.rawValue
        guard
            let poster = try? await self.store.put(
                posterKey,
                body: AsyncStream { stream in
                    stream.yield(jpeg)
                    stream.finish()
                },
                attributes: ObjectAttributes(
                    contentType: ImageFormat.jpeg.mimeType,
                    owner: object.owner,
                    extras: extras,
                    created: self.clock.now
                ),
                maxBytes: max(jpeg.readableBytes, 1)
            )
        else { return nil }
        var previous: String?
        do {
            try await self.store.updateMetadata(key) { video in
                previous = video.extras["poster"]
                video.extras["poster"] = posterKey.rawValue
            }
        } catch {
            // The video went away while its poster was made.
            _ = try? await self.store.delete(posterKey)
            return nil
        }
        // A reset while the poster was made: the fresh state holds neither it nor, soon, the video.
        guard self.epoch.current == epoch else {
            _ = try? await self.store.delete(posterKey)
            return nil
        }
        if let previous, previous != posterKey.rawValue,
            let old = try? await self.store.metadata(for: ObjectKey(previous)),
            old.extras["poster_of"] == key.rawValue
        {
            _ = try? await self.store.delete(ObjectKey(previous))
        }
        return poster
    }

    /// Deletes the poster `storePoster(for:key:)` made for a video; call it with the video's metadata as it
    /// was read before the video itself is deleted.
    ///
    /// Only an object whose own `poster_of` names this video is deleted, so an extra that names some other
    /// object deletes nothing. Failures are ignored: a poster left behind is only an unlisted image.
    ///
    /// - Parameter object: the video's metadata.
    func deletePoster(of object: ObjectMetadata) async {
        guard let name = object.extras["poster"], let key = try? ObjectKey(name),
            let poster = try? await self.store.metadata(for: key), poster.extras["poster_of"] == object.key
        else { return }
        _ = try? await self.store.delete(key)
    }

    /// Copies an object to a fresh private file (folder mode 0700, file 0600), runs `body` with its path, and
    /// removes it, whatever `body` does; the folder's name starts with `temporaryPrefix`.
    private func withTemporaryCopy<Result: Sendable>(
        of key: ObjectKey,
        _ body: (String) async throws -> Result
    ) async throws -> Result {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent(self.temporaryPrefix + UUID().uuidString.lowercased())
        let path = folder.appendingPathComponent("video").path
        // Every file call runs on NIO's thread pool (`BlockingWork`).
        try await BlockingWork.run {
            try FileManager.default.createDirectory(
                at: folder,
                withIntermediateDirectories: false,
                attributes: [.posixPermissions: 0o700]
            )
        }
        do {
            let result = try await self.withFile(at: path, copyOf: key, body)
            try? await BlockingWork.run { try FileManager.default.removeItem(at: folder) }
            return result
        } catch {
            try? await BlockingWork.run { try FileManager.default.removeItem(at: folder) }
            throw error
        }
    }

    /// Copies an object to a new file at `path` (mode 0600) and runs `body` with the path.
    private func withFile<Result: Sendable>(
        at path: String,
        copyOf key: ObjectKey,
        _ body: (String) async throws -> Result
    ) async throws -> Result {
        let pool = NIOThreadPool.singleton
        let descriptor = try await pool.runIfActive {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw MockCDNError.storageFailure("cannot create a temporary file for a poster: errno \(errno)")
            }
            return descriptor
        }
        do {
            try await self.store.read(key, range: nil) { chunk in
                try await pool.runIfActive { try Self.writeAll(chunk, to: descriptor) }
            }
            close(descriptor)
        } catch {
            close(descriptor)
            throw error
        }
        return try await body(path)
    }

    /// Writes all of `buffer` to a file descriptor.
    private static func writeAll(_ buffer: ByteBuffer, to descriptor: CInt) throws {
        try buffer.withUnsafeReadableBytes { bytes in
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let written = write(descriptor, base + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    throw MockCDNError.storageFailure("cannot write a poster's temporary file: errno \(errno)")
                }
                offset += written
            }
        }
    }
}
