import Synchronization

/// A count of resets: an upload notes it when it starts and gives up if it moved by the time it commits.
final class ResetEpoch: Sendable {
    private let value = Atomic<Int>(0)

    var current: Int { self.value.load(ordering: .acquiring) }

    func advance() { self.value.add(1, ordering: .releasing) }
}
