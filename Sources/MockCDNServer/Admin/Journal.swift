import Foundation
import Synchronization

/// The request journal: the last `capacity` requests (the test-control routes excluded), oldest first,
/// with secret query values redacted and only the *source* of a credential, never the credential.
final class Journal: Sendable {
    /// One request as `GET /_mockcdn/requests` shows it; bytes out and duration are filled in when the
    /// body has been written.
    final class Entry: Sendable {
        let method: String
        let path: String
        let query: String
        private let state: Mutex<State>

        struct State {
            var credential: CredentialSource
            var status: Int
            var bytesIn: Int
            var bytesOut: Int
            var durationMilliseconds: Double
            var fault: String?
        }

        init(method: String, path: String, query: String, state: State) {
            self.method = method
            self.path = path
            self.query = query
            self.state = Mutex(state)
        }

        var snapshot: State { self.state.withLock { $0 } }

        func update(_ change: (inout State) -> Void) {
            self.state.withLock { change(&$0) }
        }
    }

    /// Query parameters whose values are replaced by `REDACTED`.
    static let secretParameters: Set<String> = ["fat", "Signature", "X-Amz-Signature", "X-Amz-Security-Token"]
    static let defaultCapacity = 1000
    /// The most characters of a path or query an entry keeps, so the ring's memory stays bounded.
    static let maximumTextLength = 2048

    static func bounded(_ text: String) -> String {
        text.utf8.count <= maximumTextLength ? text : String(text.prefix(maximumTextLength)) + "…"
    }

    let capacity: Int
    private let ring: Mutex<(entries: [Entry], next: Int)>

    init(capacity: Int = Journal.defaultCapacity) {
        self.capacity = max(1, capacity)
        self.ring = Mutex(([], 0))
    }

    /// Starts an entry for a request and keeps it (dropping the oldest past capacity).
    func record(method: String, path: String, query: QueryItems, state: Entry.State) -> Entry {
        self.ring.withLock { ring in
            let entry = Entry(
                method: method,
                path: Self.bounded(path),
                query: Self.bounded(Self.redacted(query)),
                state: state
            )
            if ring.entries.count < self.capacity {
                ring.entries.append(entry)
            } else {
                ring.entries[ring.next] = entry
                ring.next = (ring.next + 1) % self.capacity
            }
            return entry
        }
    }

    /// Every entry, oldest first.
    var entries: [Entry] {
        self.ring.withLock { Array($0.entries[$0.next...] + $0.entries[..<$0.next]) }
    }

    func clear() {
        self.ring.withLock { $0 = ([], 0) }
    }

    /// The query as sent, with each secret parameter's value replaced.
    static func redacted(_ query: QueryItems) -> String {
        query.raw.map { secretParameters.contains($0.name) ? "\($0.name)=REDACTED" : $0.text }.joined(separator: "&")
    }
}
