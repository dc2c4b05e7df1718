import Dispatch
import Foundation
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A poster for a video upload (Stream's `thumb_url` on videos): an early frame of an MP4, MOV or WebM file
/// as a JPEG, made by the `ffmpeg` binary run as a bounded subprocess.
///
/// Why a subprocess and not libavformat through a C shim:
/// - a decoder crash on hostile input kills only the subprocess, never the server;
/// - time and memory are bounded with the OS's own tools, a wall-clock kill and an address-space rlimit
///   (`ulimit -v`), which a library call inside the server process cannot be given;
/// - the server binary links no FFmpeg library, so its start-up time and idle memory do not grow (Debian 12's
///   ffmpeg maps about 290 MiB of address space in some 200 shared libraries before it reads a byte);
/// - Debian's `ffmpeg` package is one guarded install (`make video-deps`).
///
/// What ffmpeg may do is fixed by its arguments, never by the file: the demuxer is the one the stored type
/// names (never probed, so an HLS playlist or concat script named `.mp4` is never followed to other files),
/// `-format_whitelist` allows that demuxer alone, input protocols are `file` only (no network, no `concat:`
/// or `subfile:`), QuickTime data references to other files stay off, stdin is never read, audio, subtitle
/// and data streams are dropped, and the environment is empty (no `FFREPORT` file). The path is a separate
/// argv element, never parsed by a shell.
public enum VideoPoster {
    /// The containers a poster is made from, each named by the ffmpeg demuxer that reads it.
    public enum Container: String, Sendable, CaseIterable {
        /// MP4 and QuickTime (ffmpeg's `mov,mp4,m4a,3gp,3g2,mj2` demuxer).
        case quickTime = "mov"
        /// WebM and Matroska (ffmpeg's `matroska,webm` demuxer).
        case matroska = "matroska"

        /// The container of a stored content type, or nil when posters are not made for it.
        ///
        /// - Parameter contentType: a stored type such as `video/mp4` (parameters and case are ignored).
        /// - Returns: `.quickTime` for `video/mp4` and `video/quicktime`, `.matroska` for `video/webm` and
        ///   `video/x-matroska`.
        public init?(contentType: String) {
            switch MediaType.essence(contentType) {
            case "video/mp4", "video/quicktime": self = .quickTime
            case "video/webm", "video/x-matroska": self = .matroska
            default: return nil
            }
        }

        /// The name ffmpeg's `-f` takes.
        public var demuxer: String { self.rawValue }
    }

    /// Bytes of ffmpeg's error output kept for the error message; the rest is read and dropped.
    static let messageBytes = 2048

    /// Makes a poster JPEG of the video at `path`.
    ///
    /// The first key frame is decoded (non-key frames before it are skipped undecoded, and decoding stops
    /// there), scaled to fit inside `maximumSide` x `maximumSide` keeping its aspect ratio (never enlarged),
    /// upright when the file carries a rotation.
    ///
    /// - Parameters:
    ///   - path: a local file, read by ffmpeg (not by this process).
    ///   - container: the demuxer to read it with; it is never guessed from the bytes.
    ///   - maximumSide: the longest side of the poster, 1...8192.
    ///   - timeLimit: wall-clock time after which ffmpeg is killed.
    ///   - memoryLimitBytes: ffmpeg's address-space limit; its libraries alone map about 290 MiB.
    ///   - outputLimitBytes: the most JPEG bytes read back; ffmpeg is killed past it.
    /// - Returns: the JPEG.
    /// - Throws: `MockCDNError.imageFailure` with a short reason when ffmpeg is not installed, fails, times
    ///   out, writes more than `outputLimitBytes` or writes no JPEG; `CancellationError` when the task is
    ///   cancelled (ffmpeg is killed).
    public static func poster(
        ofFileAt path: String,
        container: Container,
        maximumSide: Int = 1024,
        timeLimit: Duration = .seconds(10),
        memoryLimitBytes: Int = 512 << 20,
        outputLimitBytes: Int = 8 << 20
    ) async throws -> ByteBuffer {
        guard (1...8192).contains(maximumSide) else {
            throw MockCDNError.imageFailure("poster side \(maximumSide) is outside 1...8192")
        }
        guard let ffmpeg = Self.ffmpegPath else {
            throw MockCDNError.imageFailure("ffmpeg was not found on PATH (make video-deps installs it)")
        }
        let result = try await BoundedProcess.run(
            executable: ffmpeg,
            arguments: Self.arguments(path: path, container: container, maximumSide: maximumSide),
            timeLimit: timeLimit,
            memoryLimitBytes: memoryLimitBytes,
            outputLimitBytes: outputLimitBytes,
            messageBytes: Self.messageBytes
        )
        if let stop = result.stop {
            switch stop {
            case .timedOut: throw MockCDNError.imageFailure("video poster took longer than \(timeLimit)")
            case .outputTooLarge:
                throw MockCDNError.imageFailure("video poster is larger than \(outputLimitBytes) bytes")
            case .cancelled: throw CancellationError()
            }
        }
        guard result.exitedNormally, result.status == 0 else {
            let how = result.exitedNormally ? "exited with status \(result.status)" : "died of signal \(result.status)"
            throw MockCDNError.imageFailure("ffmpeg \(how): \(Self.summary(of: result.messages))")
        }
        // ffmpeg exits 0 when the stream ends before a frame was decoded.
        guard result.output.starts(with: [0xFF, 0xD8, 0xFF]) else {
            throw MockCDNError.imageFailure("ffmpeg decoded no frame of the video")
        }
        return ByteBuffer(bytes: result.output)
    }

    /// The `ffmpeg` found on PATH, or in the usual places when PATH has none; nil when there is none.
    public static var ffmpegPath: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        // Only absolute entries: a relative one would depend on the server's working directory.
        let folders =
            path.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
            + ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"]
        return folders.lazy.map { $0 + "/ffmpeg" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// ffmpeg's arguments: input options (each a restriction), the input, then one scaled JPEG to stdout.
    ///
    /// - Parameters:
    ///   - path: the video file.
    ///   - container: the demuxer.
    ///   - maximumSide: the poster's longest side.
    /// - Returns: the arguments after the program name.
    static func arguments(path: String, container: Container, maximumSide: Int) -> [String] {
        var arguments = [
            "-nostdin", "-hide_banner", "-loglevel", "error",
            // One thread each for decoding and filtering: the cores belong to the server.
            "-filter_threads", "1", "-threads", "1",
            "-protocol_whitelist", "file", "-format_whitelist", container.demuxer, "-f", container.demuxer,
        ]
        if container == .quickTime {
            // Already ffmpeg's default; said here so that no build's default can make a `dref` open other files.
            arguments += ["-enable_drefs", "0"]
        }
        let side = String(maximumSide)
        arguments += [
            // Only key frames reach the decoder, so the first frame out is a whole picture, found early.
            "-skip_frame", "nokey",
            // `file:` keeps a path holding a colon from being read as another protocol's URL.
            "-i", "file:" + path,
            "-map", "0:V:0", "-an", "-sn", "-dn", "-frames:v", "1",
            "-vf",
            "scale=w='min(iw,\(side))':h='min(ih,\(side))':force_original_aspect_ratio=decrease,format=yuvj420p",
            // Same video, same bytes: no encoder version or metadata in the JPEG.
            "-map_metadata", "-1", "-fflags", "+bitexact", "-flags", "+bitexact",
            "-f", "image2pipe", "-c:v", "mjpeg", "-q:v", "4", "pipe:1",
        ]
        return arguments
    }

    /// The first line of ffmpeg's error output, printable ASCII, at most 200 characters.
    private static func summary(of messages: [UInt8]) -> String {
        let line = messages.split(separator: UInt8(ascii: "\n")).first ?? []
        let text = String(
            decoding: line.prefix(200).map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: "?") },
            as: UTF8.self
        )
        return text.isEmpty ? "no message" : text
    }
}

/// A child process with a wall-clock limit, an address-space limit and a bounded standard output.
///
/// `/bin/sh` sets the rlimit (`ulimit -v`) and then `exec`s the program, so the program keeps the pid and
/// its process group: a kill reaches the program itself. No caller data passes through the shell's
/// parsing: the program and its arguments are positional parameters.
private enum BoundedProcess {
    /// Why the process was killed.
    enum Stop: Sendable {
        case timedOut, outputTooLarge, cancelled
    }

    struct Result: Sendable {
        /// The exit status, or the signal when `exitedNormally` is false.
        var status: Int32
        var exitedNormally: Bool
        var output: [UInt8]
        /// The start of standard error.
        var messages: [UInt8]
        var stop: Stop?
    }

    static func run(
        executable: String,
        arguments: [String],
        timeLimit: Duration,
        memoryLimitBytes: Int,
        outputLimitBytes: Int,
        messageBytes: Int
    ) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let kibibytes = String(max(1, memoryLimitBytes / 1024))
        #if os(Linux)
        let limit = #"ulimit -v "$1" || exit 125; "#
        #else
        // macOS does not enforce RLIMIT_AS; there the wall-clock kill is the bound.
        let limit = ""
        #endif
        process.arguments = ["-c", limit + #"shift; exec "$0" "$@""#, executable, kibibytes] + arguments
        // Nothing inherited: `FFREPORT` and the like would make ffmpeg write files of its own.
        process.environment = ["LC_ALL": "C"]
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        let messages = Pipe()
        process.standardOutput = output
        process.standardError = messages
        // Close-on-exec on every end: a process another task spawns meanwhile must not inherit them, or the
        // drains below would wait for its exit, not ffmpeg's, to see the end of the pipe. The child still gets
        // its own ends, which spawning duplicates onto 0, 1 and 2 (a duplicate does not keep the flag).
        for pipe in [output, messages] {
            for handle in [pipe.fileHandleForReading, pipe.fileHandleForWriting] {
                _ = fcntl(handle.fileDescriptor, F_SETFD, FD_CLOEXEC)
            }
        }
        let child = Child()
        let (exits, exit) = AsyncStream.makeStream(of: (Int32, Bool).self)
        process.terminationHandler = { process in
            child.exited()
            exit.yield((process.terminationStatus, process.terminationReason == .exit))
            exit.finish()
        }
        do {
            try process.run()
        } catch {
            throw MockCDNError.imageFailure("cannot start ffmpeg: \(error)")
        }
        child.started(pid: process.processIdentifier)
        let outputDescriptor = output.fileHandleForReading.fileDescriptor
        let messageDescriptor = messages.fileHandleForReading.fileDescriptor
        // A Dispatch timer rather than a sleeping task: it fires on time even when every thread of the
        // cooperative pool is busy.
        let watchdog = DispatchWorkItem { child.kill(.timedOut) }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.interval(timeLimit), execute: watchdog)
        return await withTaskCancellationHandler {
            async let stdout = Self.drain(outputDescriptor, keeping: outputLimitBytes) { child.kill(.outputTooLarge) }
            async let stderr = Self.drain(messageDescriptor, keeping: messageBytes, whenFull: nil)
            var status: (Int32, Bool) = (-1, false)
            for await exit in exits { status = exit }
            watchdog.cancel()
            let result = Result(
                status: status.0,
                exitedNormally: status.1,
                output: await stdout,
                messages: await stderr,
                stop: child.stopReason
            )
            // The pipes' read ends are closed once both are drained, not before.
            withExtendedLifetime((process, output, messages)) {}
            return result
        } onCancel: {
            child.kill(.cancelled)
        }
    }

    /// `duration` for Dispatch, in whole nanoseconds; negative durations are zero, huge ones a year.
    private static func interval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return .nanoseconds(0) }
        guard seconds < 365 * 86_400 else { return .seconds(365 * 86_400) }
        return .nanoseconds(max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
    }

    /// Reads a pipe to its end on a thread of its own, keeping at most `limit` bytes; `whenFull` runs once when
    /// more arrive, and the rest is read and dropped so the writer never blocks on a full pipe.
    ///
    /// Not on a Dispatch queue: on Linux, Swift's concurrency runs on Dispatch's global threads, and two
    /// reads blocked there would stall every task in the process.
    private static func drain(
        _ descriptor: Int32,
        keeping limit: Int,
        whenFull: (@Sendable () -> Void)?
    ) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var kept: [UInt8] = []
                var full = false
                var chunk = [UInt8](repeating: 0, count: 64 * 1024)
                while true {
                    let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { break }
                    if full { continue }
                    if kept.count + count > limit {
                        full = true
                        kept.append(contentsOf: chunk[0..<(limit - kept.count)])
                        whenFull?()
                    } else {
                        kept.append(contentsOf: chunk[0..<count])
                    }
                }
                continuation.resume(returning: kept)
            }
        }
    }

    /// The child's pid and whether it still runs, so that a kill never reaches a pid after it was reaped.
    final class Child: Sendable {
        private struct State {
            var pid: pid_t?
            var exited = false
            var stop: Stop?
        }

        private let state = Mutex(State())

        func started(pid: pid_t) {
            let stop = self.state.withLock { state -> Stop? in
                state.pid = pid
                return state.stop
            }
            // Cancelled before the pid was known.
            if let stop { self.kill(stop) }
        }

        /// Foundation calls this right after it reaps the child; a pid is not reused within that instant.
        func exited() { self.state.withLock { $0.exited = true } }

        var stopReason: Stop? { self.state.withLock { $0.stop } }

        /// Kills the child (and its process group, when it leads one) unless it exited; the first reason wins.
        func kill(_ reason: Stop) {
            self.state.withLock { state in
                guard !state.exited else { return }
                if state.stop == nil { state.stop = reason }
                guard let pid = state.pid, pid > 0 else { return }
                _ = killProcess(-pid, SIGKILL)
                _ = killProcess(pid, SIGKILL)
            }
        }
    }
}

/// `kill(2)`, under a name that does not clash with `Child.kill`.
private func killProcess(_ pid: pid_t, _ signal: Int32) -> Int32 {
    kill(pid, signal)
}
