import NIOPosix

/// Runs a call that can block (a file's read or write, a rename, an unlink, `malloc_trim`) on NIO's thread pool,
/// and awaits it there: Swift's cooperative pool has as many threads as the machine has cores, two on a small
/// CI runner, and one blocked thread of two halves the server (issue 48).
///
/// When the pool will not take the work (it has shut down, or the awaiting task was cancelled before the work
/// started), the work runs in place, as it would have without the pool: a commit step or a cleanup is never
/// skipped for it.
public enum BlockingWork {
    /// Runs `work` on NIO's thread pool, or in place when the pool refuses it.
    ///
    /// - Parameter work: the blocking call.
    /// - Returns: what `work` returns.
    /// - Throws: what `work` throws.
    public static func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        do {
            return try await NIOThreadPool.singleton.runIfActive(work)
        } catch is CancellationError {
            return try work()
        } catch is NIOThreadPoolError.ThreadPoolInactive {
            return try work()
        }
    }

    /// Runs `work`, which cannot fail, on NIO's thread pool, or in place when the pool refuses it.
    ///
    /// - Parameter work: the blocking call.
    /// - Returns: what `work` returns.
    public static func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        do {
            return try await NIOThreadPool.singleton.runIfActive(work)
        } catch {
            return work()
        }
    }
}
