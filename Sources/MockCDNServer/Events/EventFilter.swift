import MockCDNCore

/// Which changes a notification target hears, as S3's notification configuration says it: event names in
/// their `s3:` form, a trailing `*` standing for every event of its kind (`s3:ObjectCreated:*`), and the
/// key's prefix and suffix (`Filter.Key.FilterRules`), compared with the key as stored, case-sensitively.
struct EventFilter: Sendable, Equatable {
    /// The event names S3 accepts in a configuration; MockCDN emits only `ObjectEventName`'s, the others are
    /// taken (so a backend's set-up code runs) and never fire.
    static let acceptedEvents: Set<String> = [
        "s3:ObjectCreated:*", "s3:ObjectCreated:Put", "s3:ObjectCreated:Post", "s3:ObjectCreated:Copy",
        "s3:ObjectCreated:CompleteMultipartUpload", "s3:ObjectRemoved:*", "s3:ObjectRemoved:Delete",
        "s3:ObjectRemoved:DeleteMarkerCreated", "s3:ObjectRestore:*", "s3:ObjectRestore:Post",
        "s3:ObjectRestore:Completed", "s3:ObjectRestore:Delete", "s3:ReducedRedundancyLostObject",
        "s3:Replication:*", "s3:Replication:OperationFailedReplication", "s3:Replication:OperationNotTracked",
        "s3:Replication:OperationMissedThreshold", "s3:Replication:OperationReplicatedAfterThreshold",
        "s3:LifecycleExpiration:*", "s3:LifecycleExpiration:Delete", "s3:LifecycleExpiration:DeleteMarkerCreated",
        "s3:LifecycleTransition", "s3:IntelligentTiering", "s3:ObjectTagging:*", "s3:ObjectTagging:Put",
        "s3:ObjectTagging:Delete", "s3:ObjectAcl:Put",
    ]

    /// The `s3:` event names or patterns.
    let events: [String]
    /// The key must start with it (empty: any key).
    let prefix: String
    /// The key must end with it (empty: any key).
    let suffix: String

    /// Whether a change of `key` named `name` passes the filter.
    ///
    /// - Parameters:
    ///   - name: the event.
    ///   - key: the key within the app, as stored.
    /// - Returns: true when one event pattern names it and the key has the prefix and the suffix.
    func matches(_ name: ObjectEventName, key: String) -> Bool {
        guard key.hasBytePrefix(self.prefix), key.hasByteSuffix(self.suffix) else { return false }
        let prefixed = "s3:" + name.rawValue
        return self.events.contains { pattern in
            pattern.hasSuffix(":*") ? prefixed.hasPrefix(pattern.dropLast()) : pattern == prefixed
        }
    }
}
