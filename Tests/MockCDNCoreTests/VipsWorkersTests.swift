import Foundation
import MockCDNPoolWatchdog
import MockCDNTestImages
import NIOCore
import Testing

@testable import MockCDNCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libvips in `mockcdn-imaging` children: the same answers as in process, and what happens when a child quits,
/// dies, hangs or is cancelled. The real worker is the one `swift build` puts beside the test binary; the
/// misbehaving ones are shell scripts. Each call to a worker blocks until its child answers, so the tests make
/// it outside the cooperative pool (`outsidePool`), as the server makes it on its render threads.
@Suite("Vips workers")
struct VipsWorkersTests {
    /// The build's worker; every test of the real one needs it, so its absence fails here.
    static func built(idleSeconds: Int = 10) throws -> VipsWorkers {
        let installed = try #require(VipsWorkers.installed, "mockcdn-imaging is not beside the test binary")
        return VipsWorkers(executable: installed.executable, idleSeconds: idleSeconds)
    }

    /// A worker that is a shell script with `body`.
    static func script(_ body: String, graceSeconds: Double = 10) throws -> VipsWorkers {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("worker-\(UUID().uuidString).sh")
        try "#!/bin/sh\n\(body)\n".write(to: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path.path)
        return VipsWorkers(executable: path.path, graceSeconds: graceSeconds)
    }

    static func png() throws -> ByteBuffer {
        try VipsTests.png(width: 60, height: 40)
    }

    /// Whether a process with this pid exists (a zombie would).
    static func exists(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }

    @Test("a server in this process resizes in the build's worker")
    func automatic() throws {
        _ = try Self.built()
        guard case .workers = ImageEngine.automatic else {
            Issue.record("ImageEngine.automatic is in process")
            return
        }
    }

    @Test("probe and resize in a child give what they give in process", arguments: Vips.OutputFormat.allCases)
    func sameAnswers(format: Vips.OutputFormat) async throws {
        let workers = try Self.built()
        let source = try TestImages.encode(VipsTests.bands(width: 90, height: 30, vertical: false), format: format)
        #expect(try await outsidePool { try workers.probe(source) } == Vips.probe(source))
        let inChild = try await outsidePool {
            try workers.resize(source, width: 30, height: 20, mode: .cover, anchor: .left, format: format)
        }
        let inProcess = try Vips.resize(source, width: 30, height: 20, mode: .cover, anchor: .left, format: format)
        #expect(inChild == inProcess)
        #expect(try Vips.probe(inChild) == ImageHeader(width: 30, height: 20, frames: 1, format: format.imageFormat))
    }

    @Test("a refusal comes back with libvips' own message, and the child serves the next call")
    func refusal() async throws {
        let workers = try Self.built()
        let bytes = ByteBuffer(string: "definitely not an image")
        let inChild = await #expect(throws: MockCDNError.imageFailure) {
            try await outsidePool { try workers.probe(bytes, as: .png) }
        }
        let inProcess = #expect(throws: MockCDNError.imageFailure) { try Vips.probe(bytes, as: .png) }
        #expect(inChild?.detail == inProcess?.detail)
        #expect(inChild?.detail.isEmpty == false)
        let child = try #require(workers.waitingPIDs.first)
        let png = try Self.png()
        #expect(try await outsidePool { try workers.probe(png) }.width == 60)
        #expect(workers.waitingPIDs == [child])
        // SVG is refused before any child is asked.
        #expect(throws: MockCDNError.imageFailure) { try workers.probe(ByteBuffer(string: "<svg/>")) }
        #expect(workers.waitingPIDs == [child])
    }

    @Test("a waiting child that has died is replaced, and the call is answered")
    func replaced() async throws {
        let workers = try Self.built()
        try await outsidePool { try workers.requireSupport() }
        let first = try #require(workers.waitingPIDs.first)
        kill(first, SIGKILL)
        // Whether or not the child has been seen to end yet, the call goes to a new one.
        let png = try Self.png()
        #expect(try await outsidePool { try workers.probe(png) }.height == 40)
        let second = try #require(workers.waitingPIDs.first)
        #expect(second != first)
    }

    @Test("a call to a waiting child that closed its socket goes to a new child", .timeLimit(.minutes(1)))
    func retried() async throws {
        // Each child answers one probe (a zero header: CVipsWorkerResponse is 96 bytes, its magic first), then
        // closes its socket and quits 2 s later, as a child quitting for idleness does while a call comes.
        let workers = try Self.script(
            """
            head -c 56 > /dev/null
            printf '\\126\\104\\103\\115\\001\\000\\000\\000'
            head -c 88 /dev/zero
            exec 0<&- 1>&-
            sleep 2
            """
        )
        let png = try Self.png()
        #expect(try await outsidePool { try workers.probe(png, as: .png) }.width == 0)
        let first = try #require(workers.waitingPIDs.first)
        // The first child is still running, so the call goes to it, finds its socket closed, and is sent again.
        #expect(try await outsidePool { try workers.probe(png, as: .png) }.width == 0)
        let second = try #require(workers.waitingPIDs.first)
        #expect(second != first)
    }

    @Test("a child with no request for its idle time quits, and no zombie stays", .timeLimit(.minutes(1)))
    func idleQuit() async throws {
        let workers = try Self.built(idleSeconds: 1)
        let png = try Self.png()
        #expect(try await outsidePool { try workers.probe(png) }.width == 60)
        let child = try #require(workers.waitingPIDs.first)
        // The child quits 1 s after its call; this waits up to 30 s for it to be gone, reaped (a zombie
        // would still answer kill(pid, 0)), looking every 50 ms.
        let deadline = ContinuousClock.now + .seconds(30)
        while Self.exists(child), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))  // poll interval; the deadline is 30 s
        }
        #expect(!Self.exists(child))
        #expect(try await outsidePool { try workers.probe(png) }.width == 60)
        #expect(workers.waitingPIDs.count == 1 && workers.waitingPIDs != [child])
    }

    @Test(
        "a child that dies without an answer fails the call, saying how",
        arguments: [
            ("exit 3", "exited with status 3"),
            ("kill -SEGV $$", "died of signal 11"),
        ]
    )
    func died(body: String, message: String) async throws {
        let workers = try Self.script(body)
        let png = try Self.png()
        let error = await #expect(throws: MockCDNError.imageFailure) {
            try await outsidePool { try workers.probe(png, as: .png) }
        }
        #expect(error?.detail.contains(message) == true, "\(error?.detail ?? "")")
        #expect(workers.waitingPIDs.isEmpty)
        // Without an answer to the start, image support is missing.
        await #expect(throws: MockCDNError.imageSupportMissing) {
            try await outsidePool { try workers.requireSupport() }
        }
    }

    @Test("a child with no answer past its time is killed", .timeLimit(.minutes(1)))
    func timedOut() async throws {
        // The child never answers, so the kill at 0.2 s (its time, no grace) ends the call however late it
        // comes: no margin is timed.
        let workers = try Self.script("exec sleep 600", graceSeconds: 0)
        let png = try Self.png()
        let error = await #expect(throws: MockCDNError.imageFailure) {
            try await outsidePool {
                try workers.resize(png, width: 10, height: 10, mode: .fit, format: .png, control: .init(seconds: 0.2))
            }
        }
        #expect(error?.detail == "the image worker was killed after 0.2 s without an answer")
        #expect(workers.waitingPIDs.isEmpty)
    }

    @Test("a cancel kills the child at once", .timeLimit(.minutes(1)))
    func cancelled() async throws {
        // The child would wait 600 s, and the call 10 minutes more: only the cancel can end it.
        let workers = try Self.script("exec sleep 600", graceSeconds: 600)
        let control = Vips.RenderControl(seconds: 600)
        let source = try Self.png()
        let call = Task {
            try await outsidePool {
                try workers.resize(source, width: 10, height: 10, mode: .fit, format: .png, control: control)
            }
        }
        control.cancel()
        let error = await #expect(throws: MockCDNError.imageFailure) { try await call.value }
        #expect(error?.detail == "render cancelled")
    }
}
