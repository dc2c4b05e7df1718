import CPoolWatchdog
import Foundation
import Synchronization

/// Watches Swift's cooperative thread pool in a test process, and says so on standard error when work on it
/// cannot run because every one of its threads is blocked: a blocking `open` of a FIFO, a `waitpid`, a
/// semaphore, synchronous file or process work on a cooperative thread. On two cores the pool has two threads,
/// and one such call in each stops every test's awaits (issue 48).
///
/// With `MOCKCDN_POOL_WATCHDOG=SECONDS` set, `CPoolWatchdog`'s constructor runs ``run(threshold:)`` on a thread
/// of its own as the test binary loads. It sends a probe job to the pool every 100 ms, one at a time; when the
/// probe has waited `SECONDS` and no thread of the pool is running or runnable (all are asleep in the kernel),
/// the pool is blocked, not busy: it prints one `POOL STALL` line with each thread's state and system call.
/// `scripts/swift-test-bounded.sh` fails the run on that line and names the tests that were running. A pool
/// slowed by a busy machine has runnable threads and is not reported; a single blocked thread of several is not
/// seen (the others run the probe).
public enum PoolWatchdog {
    /// One thread of the pool, as `/proc/self/task/TID` shows it.
    struct PoolThread: Equatable {
        let id: Int
        /// The scheduler state: `R` running or runnable, `S` asleep, `D` in uninterruptible sleep, ...
        let state: Character
        /// The system call it sleeps in (`/proc/.../syscall`'s first field), by name when known.
        let syscall: String
    }

    /// The threshold a setting names: seconds, more than 0.
    ///
    /// - Parameter setting: `MOCKCDN_POOL_WATCHDOG`'s value.
    /// - Returns: the seconds; nil for none or not a positive number.
    static func threshold(_ setting: String?) -> Double? {
        guard let setting, let seconds = Double(setting), seconds > 0 else { return nil }
        return seconds
    }

    /// Whether threads of the pool are all blocked: there are some, and none is running or runnable.
    ///
    /// - Parameter threads: the pool's threads.
    /// - Returns: true when the pool is blocked rather than busy.
    static func blocked(_ threads: [PoolThread]) -> Bool {
        !threads.isEmpty && !threads.contains { $0.state == "R" }
    }

    /// The `POOL STALL` line.
    ///
    /// - Parameters:
    ///   - waited: how long the probe has waited, in seconds.
    ///   - threads: the pool's threads.
    /// - Returns: the line, without a newline.
    static func report(waited: Double, threads: [PoolThread]) -> String {
        let states = threads.map { "\($0.id) \($0.state) in \($0.syscall)" }.joined(separator: "; ")
        return "POOL STALL: a job on Swift's cooperative pool has waited \(String(format: "%.1f", waited)) s and "
            + "none of its \(threads.count) threads is running (\(states)): a blocking call on the pool"
    }

    /// The threads dispatch runs the cooperative pool on: named for their quality of service
    /// (`com.apple.root.default-qos`, shown as its last 15 bytes), the overcommit queues' threads excepted.
    static func poolThreads() -> [PoolThread] {
        let tasks = "/proc/self/task"
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
        return ids.compactMap(Int.init).sorted().compactMap { id in
            let folder = "\(tasks)/\(id)"
            guard let name = try? String(contentsOfFile: folder + "/comm", encoding: .utf8),
                name.contains("qos"), !name.contains("overcommit"),
                let stat = try? String(contentsOfFile: folder + "/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")"),
                let state = stat[stat.index(after: close)...].first(where: { $0 != " " })
            else { return nil }
            let call =
                (try? String(contentsOfFile: folder + "/syscall", encoding: .utf8))?
                .split(separator: " ").first.map(String.init) ?? "?"
            return PoolThread(
                id: id,
                state: state,
                syscall: Self.syscallNames[call].map { "\($0)" } ?? "syscall \(call)"
            )
        }
    }

    /// The x86-64 and arm64 numbers of the calls a blocked test sits in, by their number on this machine.
    private static let syscallNames: [String: String] = {
        #if arch(x86_64)
        [
            "0": "read", "1": "write", "2": "open", "7": "poll", "23": "select", "35": "nanosleep", "61": "wait4",
            "202": "futex", "230": "clock_nanosleep", "232": "epoll_wait", "257": "openat", "271": "ppoll",
            "281": "epoll_pwait", "-1": "no call (running)",
        ]
        #else
        [
            "63": "read", "64": "write", "56": "openat", "73": "ppoll", "101": "nanosleep", "260": "wait4",
            "98": "futex", "115": "clock_nanosleep", "22": "epoll_pwait", "-1": "no call (running)",
        ]
        #endif
    }()

    /// Whether the last probe job has run.
    private final class Probe: Sendable {
        let ran = Atomic<Bool>(true)
    }

    /// Probes the pool until the process ends.
    ///
    /// - Parameter threshold: how long a probe may wait before a blocked pool is reported, in seconds.
    public static func run(threshold: Double) -> Never {
        let clock = ContinuousClock()
        let probe = Probe()
        var sent = clock.now
        var reported = false
        while true {
            if probe.ran.load(ordering: .acquiring) {
                probe.ran.store(false, ordering: .releasing)
                sent = clock.now
                reported = false
                Task.detached { probe.ran.store(true, ordering: .releasing) }
            } else if !reported {
                let waited = clock.now - sent
                let seconds = Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18
                if seconds >= threshold {
                    let threads = Self.poolThreads()
                    if Self.blocked(threads) {
                        FileHandle.standardError.write(
                            Data((Self.report(waited: seconds, threads: threads) + "\n").utf8)
                        )
                        reported = true
                    }
                }
            }
            usleep(100_000)
        }
    }
}

/// The entry `CPoolWatchdog`'s constructor calls on its thread: runs the watchdog when the setting names a
/// threshold.
@_cdecl("mockcdn_pool_watchdog_main")
public func mockCDNPoolWatchdogMain() {
    CPoolWatchdog_linked()
    guard let threshold = PoolWatchdog.threshold(ProcessInfo.processInfo.environment["MOCKCDN_POOL_WATCHDOG"]) else {
        return
    }
    PoolWatchdog.run(threshold: threshold)
}
