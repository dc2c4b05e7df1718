import Foundation
import Testing

@testable import MockCDNPoolWatchdog

@Suite("The test process's pool watchdog (MOCKCDN_POOL_WATCHDOG)")
struct PoolWatchdogTests {
    @Test("the setting is a positive number of seconds")
    func threshold() {
        #expect(PoolWatchdog.threshold("5") == 5)
        #expect(PoolWatchdog.threshold("0.5") == 0.5)
        for setting in [nil, "", "0", "-1", "soon"] { #expect(PoolWatchdog.threshold(setting) == nil) }
    }

    @Test("a pool whose threads all sleep is blocked; one with a runnable thread is busy")
    func blockedOrBusy() {
        let asleep = PoolWatchdog.PoolThread(id: 1, state: "S", syscall: "wait4")
        let waiting = PoolWatchdog.PoolThread(id: 2, state: "D", syscall: "openat")
        let running = PoolWatchdog.PoolThread(id: 3, state: "R", syscall: "no call (running)")
        #expect(PoolWatchdog.blocked([asleep, waiting]))
        #expect(!PoolWatchdog.blocked([asleep, running]))
        #expect(!PoolWatchdog.blocked([]))
        #expect(
            PoolWatchdog.report(waited: 5.04, threads: [asleep, waiting])
                == "POOL STALL: a job on Swift's cooperative pool has waited 5.0 s and none of its 2 threads is "
                + "running (1 S in wait4; 2 D in openat): a blocking call on the pool"
        )
    }

    @Test("the thread a test runs on is one of the pool's, seen running")
    func seesThePool() async throws {
        let threads = PoolWatchdog.poolThreads()
        // `/proc/thread-self` is `PID/task/TID` of the calling thread.
        let current = try #require(
            Int(
                try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self").split(separator: "/")
                    .last ?? ""
            )
        )
        #expect(threads.contains { $0.id == current && $0.state == "R" }, "\(threads) \(current)")
    }

    /// What the watchdog is for, shown on demand: every thread of the pool blocked in `nanosleep` for longer
    /// than the threshold. Run alone, as docs/development.md says; it fails the run by design.
    @Test(
        "a blocking call on every thread of the pool is reported (a demonstration: fails the run)",
        .enabled(if: ProcessInfo.processInfo.environment["MOCKCDN_POOL_WATCHDOG_DEMO"] != nil)
    )
    func demonstration() async {
        let threshold = PoolWatchdog.threshold(ProcessInfo.processInfo.environment["MOCKCDN_POOL_WATCHDOG"]) ?? 1
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<ProcessInfo.processInfo.activeProcessorCount {
                group.addTask { usleep(UInt32(threshold * 2.5 * 1_000_000)) }
            }
        }
    }
}
