import NIOCore
import Testing

@testable import MockCDNServer

/// The presigned PUT's stall timeout counts only time spent waiting on the client for body bytes. The watch
/// runs on a `ManualClock`: a read "takes" clock time, and nothing here waits on real time.
@Suite("Stall watch: only waits for body bytes count")
struct StallWatchTests {
    static let second: UInt64 = 1_000_000_000

    /// A body of scripted reads on the manual clock: a read that `takes` time moves the clock on by that much
    /// while it waits, then yields its bytes; one with `sleeps` waits on the clock for that long (until a
    /// test moves it); nil bytes end the body.
    struct ScriptedBody: AsyncIteratorProtocol {
        enum Read {
            case takes(UInt64, String?)
            case sleeps(UInt64, String?)
        }

        let clock: ManualClock
        var reads: [Read]

        mutating func next() async throws -> ByteBuffer? {
            guard !self.reads.isEmpty else { return nil }
            switch self.reads.removeFirst() {
            case .takes(let nanoseconds, let bytes):
                self.clock.advance(by: nanoseconds)
                return bytes.map { ByteBuffer(string: $0) }
            case .sleeps(let nanoseconds, let bytes):
                try await self.clock.sleep(nanoseconds)
                return bytes.map { ByteBuffer(string: $0) }
            }
        }
    }

    /// Reads the whole body under a 1 s watch, then spends `after` of clock time on other work (a slow store).
    static func upload(_ reads: [ScriptedBody.Read], after: UInt64, clock: ManualClock) async throws -> Int {
        let watch = StallWatch(seconds: 1, clock: clock.stallClock)
        return try await watch.run {
            var body = WatchedBody(base: ScriptedBody(clock: clock, reads: reads), watch: watch, expectedLength: nil)
            var count = 0
            while let chunk = try await body.next() { count += chunk.readableBytes }
            clock.advance(by: after)
            return count
        }
    }

    @Test("work after the body, and between reads, does not count; reads under the timeout pass")
    func slowWorkIsNoStall() async throws {
        let clock = ManualClock()
        let count = try await Self.upload(
            [.takes(Self.second * 3 / 10, "abc"), .takes(Self.second * 9 / 10, "de"), .takes(0, nil)],
            after: Self.second * 5,
            clock: clock
        )
        #expect(count == 5)
    }

    @Test("a read that waits the timeout fails the upload as stalled, without waiting for the bytes")
    func waitingIsAStall() async throws {
        let clock = ManualClock()
        // The late bytes would come after an hour of clock time: the upload ends only because the watch
        // cancels the read once the clock has moved the timeout past the read's start.
        let upload = Task {
            try await Self.upload(
                [.takes(Self.second / 10, "abc"), .sleeps(3600 * Self.second, "late")],
                after: 0,
                clock: clock
            )
        }
        await clock.sleepers(atLeast: 2)  // the watch and the waiting read
        clock.advance(by: Self.second)
        await #expect {
            _ = try await upload.value
        } throws: { error in
            guard case UploadFailure.stalled(let seconds) = error else { return false }
            return seconds == 1
        }
    }
}
