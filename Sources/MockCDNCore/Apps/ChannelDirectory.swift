import Synchronization

/// Channel membership: uploaders join the channel they upload to; a server token adds members.
public final class ChannelDirectory: Sendable {
    private let members = Mutex<[String: Set<String>]>([:])

    public init() {}

    private static func key(app: String, channel: String) -> String { app + "|" + channel }

    public func add(_ users: some Sequence<String>, app: String, channel: String) {
        self.members.withLock { $0[Self.key(app: app, channel: channel), default: []].formUnion(users) }
    }

    public func isMember(_ user: String, app: String, channel: String) -> Bool {
        self.members.withLock { $0[Self.key(app: app, channel: channel)]?.contains(user) ?? false }
    }

    public func removeAll() {
        self.members.withLock { $0.removeAll() }
    }
}
