/// An event as the built-in queue keeps it: its id, its app and the targets whose filters it passed.
struct QueuedEvent: Codable, Sendable, Equatable {
    /// Increasing for the whole server, across resets, from 1.
    let id: Int
    let app: String
    /// The ids of the app's targets whose filters the event passed, webhooks and ARN targets alike.
    let targets: [String]
    /// The ARNs of the queues, topics and functions among them.
    let arns: [String]
    let record: EventRecord
}
