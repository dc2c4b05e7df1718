import CMockCDNMemory
import MockCDNCore
import ServiceLifecycle
import Synchronization

/// Gives the allocator's free memory back to the system once the server has been quiet for a moment.
///
/// Under load, glibc keeps what requests free in its arenas (one per thread that allocated, up to eight per
/// core), ready for the next allocation, so RSS stays at the load's peak after the load has ended. Once no
/// request has arrived for `quietPeriod`, this service calls `malloc_trim(0)` (`CMockCDNMemory`), which hands
/// those free pages back. It trims once per quiet spell and never while requests keep arriving, so a busy
/// server does not pay for it (a trim takes each arena's lock in turn); the first quiet spell after start
/// returns what loading the fixtures freed. Requests are counted by `TrimObserver` (`Observers/`).
final class IdleMemoryTrim: Service, Sendable {
    /// How long no request may have arrived before a trim.
    let quietPeriod: Duration
    /// How often the count of arrivals is read.
    let tick: Duration
    private let arrivals = Atomic<Int>(0)
    private let trim: @Sendable () -> Void
    private let sleep: @Sendable (Duration) async throws -> Void

    /// - Parameters:
    ///   - quietPeriod: how long no request may have arrived before a trim.
    ///   - tick: how often the count of arrivals is read.
    ///   - sleep: waits one tick; `Task.sleep` unless a test hands out the ticks itself (so that it never
    ///     waits on real time, whose pace a loaded machine stretches).
    ///   - trim: what a trim does; `malloc_trim(0)` unless a test counts trims.
    init(
        quietPeriod: Duration = .seconds(2),
        tick: Duration = .milliseconds(250),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        trim: @escaping @Sendable () -> Void = { _ = CMockCDNMemory_returnFreeMemory() }
    ) {
        self.quietPeriod = quietPeriod
        self.tick = tick
        self.sleep = sleep
        self.trim = trim
    }

    /// Counts a request's arrival.
    func requestArrived() {
        self.arrivals.add(1, ordering: .relaxed)
    }

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            var seen = self.arrivals.load(ordering: .relaxed)
            // The count at the last trim; nil before the first, so a fresh server trims once too.
            var trimmedAt: Int?
            var quiet = Duration.zero
            while (try? await self.sleep(self.tick)) != nil {
                let count = self.arrivals.load(ordering: .relaxed)
                guard count == seen else {
                    seen = count
                    quiet = .zero
                    continue
                }
                quiet += self.tick
                if quiet >= self.quietPeriod, trimmedAt != count {
                    trimmedAt = count
                    // A trim takes each arena's lock in turn: NIO's thread pool waits for them.
                    await BlockingWork.run(self.trim)
                }
            }
        }
    }
}
