import NIOCore
import Testing

@testable import MockCDNServer

/// The presigned PUT's stall timeout counts only time spent waiting on the client for body bytes.
@Suite("Stall watch: only waits for body bytes count")
struct StallWatchTests {
    /// A body of scripted reads: each waits its delay, then yields its bytes (nil ends the body).
    struct ScriptedBody: AsyncIteratorProtocol {
        var reads: [(delay: Duration, bytes: String?)]

        mutating func next() async throws -> ByteBuffer? {
            guard !self.reads.isEmpty else { return nil }
            let read = self.reads.removeFirst()
            try await Task.sleep(for: read.delay)
            return read.bytes.map { ByteBuffer(string: $0) }
        }
    }

    /// Reads the whole body under a 1 s watch, then spends `after` on other work (a slow store).
    static func upload(_ reads: [(delay: Duration, bytes: String?)], after: Duration) async throws -> Int {
        let watch = StallWatch(seconds: 1)
        return try await watch.run {
            var body = WatchedBody(base: ScriptedBody(reads: reads), watch: watch, expectedLength: nil)
            var count = 0
            while let chunk = try await body.next() { count += chunk.readableBytes }
            try await Task.sleep(for: after)
            return count
        }
    }

    @Test("work after the body, and between reads, does not count; reads under the timeout pass")
    func slowWorkIsNoStall() async throws {
        let count = try await Self.upload(
            [(.milliseconds(300), "abc"), (.milliseconds(300), "de"), (.zero, nil)],
            after: .milliseconds(1500)
        )
        #expect(count == 5)
    }

    @Test("a read that waits the timeout fails the upload as stalled, without waiting for the bytes")
    func waitingIsAStall() async throws {
        // The late bytes would come after an hour: the test ends only because the watch cancels the read.
        await #expect {
            _ = try await Self.upload([(.milliseconds(100), "abc"), (.seconds(3600), "late")], after: .zero)
        } throws: { error in
            guard case UploadFailure.stalled(let seconds) = error else { return false }
            return seconds == 1
        }
    }
}
