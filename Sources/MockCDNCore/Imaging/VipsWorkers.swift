import CVipsLoader
import Dispatch
import Foundation
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libvips in `mockcdn-imaging` child processes (CVipsWorker.h says why), so that the server itself never
/// maps libvips.
///
/// Each child serves one request at a time; a caller takes a waiting child or starts one, and puts it back
/// when it has answered, so there are at most as many children as calls at once (the server's image
/// threads). A child with no request for `idleSeconds` quits, and all its memory goes with it. Calls block:
/// make them off the event loops, as with `Vips`.
///
/// A child that dies answers nothing: the call fails with `imageFailure` saying how it died, and the next call
/// starts a new one. A call that finds a waiting child gone (it quit for idleness as the call came, or was
/// killed) sends its request to a new child instead. A render that outlives its control's time by
/// `graceSeconds` (a decoder stuck where libvips does not look at the clock) has its child killed, and so has
/// one whose control is cancelled.
public final class VipsWorkers: Sendable {
    /// The worker program.
    public let executable: String
    /// Seconds a child waits for a request before it quits.
    public let idleSeconds: Int
    /// Seconds past a render's own time limit (or past `probeSeconds` for other calls) before its child is
    /// killed.
    let graceSeconds: Double
    /// The time a probe or the start may take.
    static let probeSeconds = 20.0

    private let waiting = Mutex<[Child]>([])

    /// - Parameters:
    ///   - executable: the path of `mockcdn-imaging`.
    ///   - idleSeconds: how long a child waits for work before it quits.
    ///   - graceSeconds: how long past a call's own time limit its child is killed.
    public init(executable: String, idleSeconds: Int = 10, graceSeconds: Double = 10) {
        self.executable = executable
        self.idleSeconds = idleSeconds
        self.graceSeconds = graceSeconds
    }

    /// The installed worker: `lib/mockcdn/mockcdn-imaging` beside the running executable's folder (the
    /// release tarball, the image and the wheel), else `mockcdn-imaging` in the executable's own folder (a
    /// build folder); nil when there is neither, and libvips then runs in process.
    public static let installed: VipsWorkers? = {
        guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return nil }
        let folder = executable.deletingLastPathComponent()
        let candidates = [
            folder.deletingLastPathComponent().appendingPathComponent("lib/mockcdn/mockcdn-imaging"),
            folder.appendingPathComponent("mockcdn-imaging"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
            .map { VipsWorkers(executable: $0.path) }
    }()

    /// Checks that a child can load and start libvips (one exchange; the server's `ImageWorkers` asks until
    /// it has once succeeded).
    ///
    /// - Throws: `MockCDNError.imageSupportMissing` saying what is missing (the worker or libvips).
    public func requireSupport() throws(MockCDNError) {
        var request = CVipsWorkerRequest()
        request.operation = Int32(CVipsWorkerStart.rawValue)
        do {
            _ = try self.run(request, source: ByteBuffer(), seconds: Self.probeSeconds, control: nil)
        } catch let error where error == .imageSupportMissing {
            throw error
        } catch {
            throw .imageSupportMissing("the image worker \(self.executable) cannot start: \(error.detail)")
        }
    }

    /// `Vips.probe`, in a child.
    ///
    /// - Parameters:
    ///   - data: the encoded image.
    ///   - format: the format the bytes must be in; by default the one their first bytes show.
    /// - Returns: the header.
    /// - Throws: as `Vips.probe`.
    public func probe(_ data: ByteBuffer, as format: ImageFormat? = nil) throws -> ImageHeader {
        let source = try Vips.shimSource(format ?? ImageFormat(sniffing: data))
        var request = CVipsWorkerRequest()
        request.operation = Int32(CVipsWorkerProbe.rawValue)
        request.source = Int32(source.shim.rawValue)
        let answer = try self.run(request, source: data, seconds: Self.probeSeconds, control: nil)
        return ImageHeader(answer.header, format: source.format)
    }

    /// `Vips.resize`, in a child; the parameters are `Vips.resize`'s.
    ///
    /// - Returns: the encoded result.
    /// - Throws: as `Vips.resize`; `imageFailure` when the child dies or is killed.
    public func resize(
        _ data: ByteBuffer,
        as sourceFormat: ImageFormat? = nil,
        width: Int,
        height: Int,
        mode: Vips.ResizeMode,
        anchor: Vips.Anchor = .center,
        format: Vips.OutputFormat,
        quality: Int = Vips.defaultQuality,
        allFrames: Bool = false,
        control: Vips.RenderControl? = nil
    ) throws -> ByteBuffer {
        let source = try Vips.shimSource(sourceFormat ?? ImageFormat(sniffing: data))
        var request = CVipsWorkerRequest()
        request.operation = Int32(CVipsWorkerResize.rawValue)
        request.source = Int32(source.shim.rawValue)
        request.width = Int32(clamping: width)
        request.height = Int32(clamping: height)
        request.mode = Int32(mode.shimValue.rawValue)
        request.anchor = Int32(anchor.shimValue.rawValue)
        request.format = Int32(format.shimValue.rawValue)
        request.quality = Int32(clamping: quality)
        request.all_pages = allFrames ? 1 : 0
        let seconds = control?.seconds ?? Self.probeSeconds
        return try self.run(request, source: data, seconds: seconds, control: control).bytes
    }

    /// The children waiting for work now (for tests).
    var waitingPIDs: [pid_t] { self.waiting.withLock { $0.map(\.pid) } }

    // MARK: - Calls

    private struct Answer {
        var header: CVipsShimHeader
        var bytes: ByteBuffer
    }

    /// Sends `request` with `source` to a child and reads its answer. A waiting child may have quit for
    /// idleness as the request was sent; the request then goes to a new child, once.
    private func run(
        _ request: CVipsWorkerRequest,
        source: ByteBuffer,
        seconds: Double,
        control: Vips.RenderControl?
    ) throws(MockCDNError) -> Answer {
        var request = request
        request.magic = CVIPSWORKER_MAGIC
        request.seconds = seconds
        request.length = UInt64(source.readableBytes)
        while true {
            let (child, reused) = try self.take()
            switch child.exchange(request, source: source, killAfter: seconds + self.graceSeconds, control: control) {
            case .answered(let response, let bytes):
                self.waiting.withLock { $0.append(child) }
                return try Self.answer(response, bytes: bytes)
            case .gone where reused:
                // It quit for idleness (or was killed) while it waited, before or as the request was sent.
                continue
            case .gone(let reason), .killed(let reason):
                throw .imageFailure(reason)
            }
        }
    }

    /// A waiting child that has not quit, else a new one.
    private func take() throws(MockCDNError) -> (Child, reused: Bool) {
        while let child = self.waiting.withLock({ $0.popLast() }) {
            if child.isRunning { return (child, true) }
        }
        return (try Child(executable: self.executable, idleSeconds: self.idleSeconds), false)
    }

    private static func answer(_ response: CVipsWorkerResponse, bytes: ByteBuffer) throws(MockCDNError) -> Answer {
        switch CVipsWorkerStatus(rawValue: response.status) {
        case CVipsWorkerOK:
            return Answer(header: response.header, bytes: bytes)
        case CVipsWorkerUnsupported:
            throw .imageSupportMissing(String(buffer: bytes))
        default:
            throw .imageFailure(String(buffer: bytes).trimmingSuffix("\n"))
        }
    }
}

/// One `mockcdn-imaging` process, the socket to it, and a thread that waits for it to end.
private final class Child: Sendable {
    enum Outcome {
        case answered(CVipsWorkerResponse, ByteBuffer)
        /// It ended without answering, and not by this process's kill.
        case gone(String)
        /// This process killed it, for time or a cancel.
        case killed(String)
    }

    private enum Kill {
        case timedOut(Double)
        case cancelled
    }

    private struct State {
        /// The waitpid status once it has ended.
        var status: Int32?
        /// Why it was killed, when it was.
        var kill: Kill?
        /// Counts exchanges, so that a late timer kills only the exchange it was set for.
        var exchange = 0
    }

    let pid: pid_t
    private let socket: Int32
    private let state = Mutex(State())
    private let ended = DispatchSemaphore(value: 0)

    init(executable: String, idleSeconds: Int) throws(MockCDNError) {
        var pid: pid_t = 0
        var socket: Int32 = -1
        var error: UnsafeMutablePointer<CChar>?
        guard CVipsWorker_spawn(executable, String(idleSeconds), &pid, &socket, &error) == 1 else {
            let message = error.map { String(cString: $0) } ?? "spawn failed"
            free(error)
            throw .imageSupportMissing("the image worker cannot start: \(message)")
        }
        self.pid = pid
        self.socket = socket
        // The child is reaped as soon as it ends (no zombie stays behind an idle quit), and its status kept.
        Thread.detachNewThread { [self] in
            var status: Int32 = 0
            let waited = CVipsWorker_wait(self.pid, &status) == 1
            self.state.withLock { $0.status = waited ? status : -1 }
            self.ended.signal()
        }
    }

    deinit {
        close(self.socket)
    }

    /// Whether it has not ended.
    var isRunning: Bool { self.state.withLock { $0.status == nil } }

    /// One request and its answer, with a timer that kills the child after `killAfter` seconds and a
    /// cancellation that kills it at once.
    func exchange(
        _ request: CVipsWorkerRequest,
        source: ByteBuffer,
        killAfter: Double,
        control: Vips.RenderControl?
    ) -> Outcome {
        let number = self.state.withLock { state in
            state.exchange += 1
            return state.exchange
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + killAfter) { [self] in
            self.stop(.timedOut(killAfter), during: number)
        }
        control?.onCancel { [self] in self.stop(.cancelled, during: number) }
        defer {
            control?.onCancel(nil)
            // Late timers find another exchange number and leave the child alone.
            self.state.withLock { $0.exchange += 1 }
        }
        var response = CVipsWorkerResponse()
        var out: UnsafeMutableRawPointer?
        var error: UnsafeMutablePointer<CChar>?
        let sent = source.withUnsafeReadableBytes { bytes in
            CVipsWorker_exchange(self.socket, [request], bytes.baseAddress, &response, &out, &error)
        }
        defer { free(out) }
        if sent == 1 {
            let bytes = out.map { ByteBuffer(bytes: UnsafeRawBufferPointer(start: $0, count: Int(response.length))) }
            return .answered(response, bytes ?? ByteBuffer())
        }
        let reason = error.map { String(cString: $0) } ?? "the image worker failed"
        free(error)
        return self.ended(after: reason)
    }

    /// What ended the child once an exchange with it failed: it has closed its socket, so it is ending.
    private func ended(after reason: String) -> Outcome {
        // A child that broke the wire without ending is killed, so that the wait below returns.
        if self.ended.wait(timeout: .now() + 5) == .timedOut {
            kill(self.pid, SIGKILL)
            self.ended.wait()
        }
        self.ended.signal()
        let (status, kill) = self.state.withLock { ($0.status ?? -1, $0.kill) }
        switch kill {
        case .timedOut(let seconds): return .killed("the image worker was killed after \(seconds) s without an answer")
        case .cancelled: return .killed("render cancelled")
        case nil: break
        }
        let signal = CVipsWorker_signal(status)
        if signal != 0 { return .gone("the image worker died of signal \(signal) (\(reason))") }
        return .gone("the image worker exited with status \(CVipsWorker_exit_status(status)) (\(reason))")
    }

    private func stop(_ why: Kill, during exchange: Int) {
        let killing = self.state.withLock { state -> Bool in
            guard state.exchange == exchange, state.status == nil, state.kill == nil else { return false }
            state.kill = why
            return true
        }
        if killing { kill(self.pid, SIGKILL) }
    }
}
