import MockCDNCore
import NIOPosix
import Synchronization

/// Where image work runs, off the event loops, and how much of it at once.
///
/// Renders and header probes have pools of their own, so that long renders cannot starve the probe an
/// upload waits for; and at most `renderThreads` sources are held in memory for rendering at once, so that
/// many requests for variants of one large image do not each buffer it before they queue. Each pool thread
/// hands its call to libvips where `engine` says: a `mockcdn-imaging` child when one is installed.
final class ImageWorkers: Sendable {
    /// Threads that render variants.
    static let renderThreads = 2
    /// The longest one render may take before it is stopped.
    static let renderSeconds = 20.0

    let renders: NIOThreadPool
    let probes: NIOThreadPool
    /// A slot to hold a source buffer and render it.
    let sourceSlots: AsyncSemaphore
    /// Where libvips runs.
    let engine: ImageEngine
    private let supported = Atomic<Bool>(false)

    /// One set for the process, like NIO's own singleton pool: servers in a test process share them.
    static let shared = ImageWorkers()

    private init() {
        self.renders = NIOThreadPool(numberOfThreads: Self.renderThreads)
        self.renders.start()
        self.probes = NIOThreadPool(numberOfThreads: 1)
        self.probes.start()
        self.sourceSlots = AsyncSemaphore(permits: Self.renderThreads)
        self.engine = .automatic
    }

    /// Checks, on the probe pool until it has once succeeded, that images can be decoded at all.
    ///
    /// - Throws: `MockCDNError.imageSupportMissing` saying what is missing.
    func requireSupport() async throws {
        guard !self.supported.load(ordering: .relaxed) else { return }
        let engine = self.engine
        try await self.probes.runIfActive { try engine.requireSupport() }
        self.supported.store(true, ordering: .relaxed)
    }
}

/// A counting semaphore for tasks: `acquire` waits (cancellably) for a permit, `release` hands it on.
final class AsyncSemaphore: Sendable {
    private struct State {
        var permits: Int
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    init(permits: Int) {
        self.state = Mutex(State(permits: permits))
    }

    /// Waits for a permit.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    func acquire() async throws {
        let id = self.state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case granted, waiting, cancelled }
                // Decided under the lock, so that `onCancel` either finds this waiter or runs before it exists.
                let outcome = self.state.withLock { state -> Outcome in
                    if Task.isCancelled { return .cancelled }
                    if state.permits > 0 {
                        state.permits -= 1
                        return .granted
                    }
                    state.waiters.append((id, continuation))
                    return .waiting
                }
                switch outcome {
                case .granted: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting: break
                }
            }
        } onCancel: {
            let waiter = self.state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Returns a permit, waking the longest waiter.
    func release() {
        let waiter = self.state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiters.isEmpty {
                state.permits += 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        waiter?.resume()
    }

    /// Runs `body` holding a permit.
    func withPermit<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await self.acquire()
        defer { self.release() }
        return try await body()
    }
}
