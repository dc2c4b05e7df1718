import Foundation

/// Runs blocking work of a test (a child process's `waitUntilExit`, a pipe's read, a tool run to its end) on a
/// thread of its own and awaits it, so that the test's task waits without holding one of the cooperative
/// pool's threads: on two cores the pool has two, and two tests blocked in `waitpid` would stop every other
/// test's awaits (issue 48; the watchdog beside this file reports such a stall).
///
/// - Parameter work: the blocking work.
/// - Returns: what `work` returns.
/// - Throws: what `work` throws.
public func outsidePool<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Swift.Result { try work() }) }
    }
}
