import Foundation
import MockCDNCore
import Synchronization

/// Where object changes become events: each goes into the built-in queue (`EventQueue`) and, for every
/// webhook target whose filter it passes, to a delivery (`WebhookDeliveries`). Each change is emitted where it
/// is made, by name: an upload's `ObjectCreated:*` by the intake once the object is stored
/// (`UploadReceiver.store`, `IncomingUpload.event`), a copy's by `ObjectCopier`, an ACL or tagging change by
/// `changeSubresource`, a delete by `ObjectRemover` (and `UploadReceiver.discard`), a reset's by
/// `emitRemovals`. MockCDN's own objects (posters, fixtures, parts) emit nothing. The control routes and S3's
/// notification configuration read and set the targets here.
///
/// An app's targets are the config file's (`apps[].notifications`) until `PUT /_mockcdn/apps/{app}/notifications`
/// or S3's `PutBucketNotificationConfiguration` replaces them; a reset brings the file's back.
final class ObjectEvents: Sendable {
    let apps: AppRegistry
    let clock: MockClock
    let queue: EventQueue
    let deliveries: WebhookDeliveries
    /// MockCDN's own listener, which no webhook target may name with a control route.
    let listener: OwnListener
    /// The config file's targets, by app id.
    let configured: [String: NotificationConfiguration]
    /// Targets set at run time, by app id; they replace the file's for that app.
    private let replaced = Mutex<[String: NotificationConfiguration]>([:])
    /// The last sequencer given, for the whole server: each change's is greater than every earlier one's. It
    /// starts from the system time in microseconds (times 256), so a restarted server over the same data
    /// directory goes on above the sequencers it gave before.
    private let sequencer = Atomic<UInt64>(UInt64(Date().timeIntervalSince1970 * 1_000_000) << 8)

    /// The most `ObjectRemoved:Delete` records a reset emits; past it, the rest of the removed objects emit
    /// none.
    static let maximumResetRecords = 1000

    /// An event hub for `apps`.
    ///
    /// - Parameters:
    ///   - apps: the apps (region, secret).
    ///   - clock: the virtual clock events are timed by.
    ///   - configured: the config file's targets by app id, validated.
    ///   - deliveries: the webhook delivery service.
    ///   - listener: MockCDN's own listener.
    ///   - queue: the built-in queue.
    init(
        apps: AppRegistry,
        clock: MockClock,
        configured: [String: NotificationConfiguration],
        deliveries: WebhookDeliveries,
        listener: OwnListener,
        queue: EventQueue = EventQueue()
    ) {
        self.apps = apps
        self.clock = clock
        self.configured = configured
        self.deliveries = deliveries
        self.listener = listener
        self.queue = queue
    }

    /// The app's targets now.
    ///
    /// - Parameter app: the app id.
    /// - Returns: its configuration (empty when it has none).
    func configuration(of app: String) -> NotificationConfiguration {
        self.replaced.withLock { $0[app] } ?? self.configured[app] ?? NotificationConfiguration()
    }

    /// Replaces the app's targets until the next reset.
    ///
    /// - Parameters:
    ///   - configuration: the new targets.
    ///   - app: the app id.
    /// - Returns: the configuration as kept (ids given).
    /// - Throws: `NotificationTarget.Invalid` for a bad target, or a webhook on MockCDN's own control routes.
    @discardableResult
    func setConfiguration(
        _ configuration: NotificationConfiguration,
        of app: String
    ) throws(NotificationTarget.Invalid)
        -> NotificationConfiguration
    {
        try self.changeConfiguration(of: app) { $0 = configuration }
    }

    /// Changes the app's targets with `change`, read, changed and kept under one lock, so that two writers
    /// (a bucket PUT and the control route) never lose one's change.
    ///
    /// - Parameters:
    ///   - app: the app id.
    ///   - change: the change.
    /// - Returns: the configuration as kept (ids given).
    /// - Throws: `NotificationTarget.Invalid` for a bad target, or a webhook on MockCDN's own control routes;
    ///   nothing changes then.
    @discardableResult
    func changeConfiguration(
        of app: String,
        _ change: (inout NotificationConfiguration) -> Void
    ) throws(NotificationTarget.Invalid) -> NotificationConfiguration {
        try self.replaced.withLock { (replaced) throws(NotificationTarget.Invalid) -> NotificationConfiguration in
            var configuration = replaced[app] ?? self.configured[app] ?? NotificationConfiguration()
            change(&configuration)
            let validated = try configuration.validated()
            if let refusal = validated.ownListenerRefusal(self.listener) {
                throw NotificationTarget.Invalid(message: refusal)
            }
            replaced[app] = validated
            return validated
        }
    }

    /// Records a change of a stored object: nothing for a key outside every app (MockCDN's own
    /// `_mockcdn/...` keys).
    ///
    /// - Parameters:
    ///   - name: what happened.
    ///   - key: the store key (`{app}/{key}`).
    ///   - object: the stored object's metadata for a creation; nil for a delete.
    /// Emits a reset's `ObjectRemoved:Delete` per removed object of an app, up to `maximumResetRecords` (video
    /// posters, MockCDN's own, emit none).
    ///
    /// - Parameter removed: what the store held before the reset.
    func emitRemovals(of removed: [ObjectMetadata]) {
        var emitted = 0
        for object in removed where emitted < Self.maximumResetRecords {
            // Posters go with their videos: MockCDN's own, like the `_mockcdn/` keys.
            guard object.extras["poster_of"] == nil, let key = try? ObjectKey(object.key),
                self.apps.app(id: String(key.rawValue.prefix { $0 != "/" })) != nil
            else { continue }
            self.emit(.delete, key: key, object: nil)
            emitted += 1
        }
    }

    func emit(_ name: ObjectEventName, key: ObjectKey, object: ObjectMetadata?) {
        guard let slash = key.rawValue.firstIndex(of: "/"),
            let app = self.apps.app(id: String(key.rawValue[..<slash]))
        else { return }
        let bucketKey = String(key.rawValue[key.rawValue.index(after: slash)...])
        let record = EventRecord(
            name: name,
            app: app.id,
            region: app.configuration.s3Region,
            key: bucketKey,
            object: object,
            time: self.clock.now,
            sequencer: self.sequencer.wrappingAdd(1, ordering: .relaxed).newValue
        )
        let matching = self.configuration(of: app.id).all.filter { $0.target.filter.matches(name, key: bucketKey) }
        let event = self.queue.append { id in
            QueuedEvent(
                id: id,
                app: app.id,
                targets: matching.compactMap(\.target.id),
                arns: matching.compactMap(\.target.arn),
                record: record
            )
        }
        for (_, target) in matching {
            guard let url = target.webhook else { continue }
            var delivered = record
            delivered.s3.configurationId = target.id ?? ""
            guard let body = try? Self.document([delivered]) else { continue }
            self.deliveries.enqueue(
                body,
                to: url,
                target: target.id ?? "",
                app: app.id,
                secret: app.configuration.apiSecret,
                event: event
            )
        }
    }

    /// `{"Records":[...]}`, the document a delivery carries, as UTF-8 bytes.
    ///
    /// - Parameter records: the records.
    /// - Returns: the JSON.
    /// - Throws: what `JSONEncoder` throws.
    static func document(_ records: [EventRecord]) throws -> [UInt8] {
        struct Document: Encodable {
            let Records: [EventRecord]  // swiftlint:disable:this identifier_name
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(Document(Records: records)))
    }

    /// Forgets the queue, the pending deliveries and the run-time targets (`/_mockcdn/reset`); the config
    /// file's targets stay.
    func clear() {
        self.queue.clear()
        self.deliveries.clear()
        self.replaced.withLock { $0 = [:] }
    }
}
