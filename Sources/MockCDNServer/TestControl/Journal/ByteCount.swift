import Synchronization

/// A byte count shared between a body and the journal.
final class ByteCount: Sendable {
    private let count = Atomic<Int>(0)

    func add(_ bytes: Int) { self.count.add(bytes, ordering: .relaxed) }

    var value: Int { self.count.load(ordering: .relaxed) }
}
