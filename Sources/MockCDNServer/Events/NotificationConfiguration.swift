import Hummingbird

/// An app's notification targets, as `PUT /_mockcdn/apps/{app}/notifications` takes them, `GET` gives them
/// back and the config file's `apps[].notifications` writes them; S3's `PutBucketNotificationConfiguration`
/// sets its queues, topics and Lambda functions.
struct NotificationConfiguration: Codable, Sendable, Equatable {
    var webhooks: [NotificationTarget] = []
    var queues: [NotificationTarget] = []
    var topics: [NotificationTarget] = []
    var lambdas: [NotificationTarget] = []

    /// The most targets an app has, all kinds together.
    static let maximumTargets = 100

    /// Every member the JSON and YAML forms may have: any other is refused by name.
    static let shape: MemberShape = {
        let target = MemberShape.object([
            "id": .value, "url": .value, "arn": .value, "events": .value, "prefix": .value, "suffix": .value,
        ])
        return .object([
            "webhooks": .list(target), "queues": .list(target), "topics": .list(target), "lambdas": .list(target),
        ])
    }()

    /// A configuration of these targets.
    init(
        webhooks: [NotificationTarget] = [],
        queues: [NotificationTarget] = [],
        topics: [NotificationTarget] = [],
        lambdas: [NotificationTarget] = []
    ) {
        self.webhooks = webhooks
        self.queues = queues
        self.topics = topics
        self.lambdas = lambdas
    }

    /// Reads a configuration; a kind left out is none.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.webhooks = try container.decodeIfPresent([NotificationTarget].self, forKey: .webhooks) ?? []
        self.queues = try container.decodeIfPresent([NotificationTarget].self, forKey: .queues) ?? []
        self.topics = try container.decodeIfPresent([NotificationTarget].self, forKey: .topics) ?? []
        self.lambdas = try container.decodeIfPresent([NotificationTarget].self, forKey: .lambdas) ?? []
    }

    /// Every target with its kind's name, webhooks first.
    var all: [(role: String, target: NotificationTarget)] {
        self.webhooks.map { ("webhooks", $0) } + self.queues.map { ("queues", $0) }
            + self.topics.map { ("topics", $0) } + self.lambdas.map { ("lambdas", $0) }
    }

    /// Checks every target and gives each without an id one (`notification-1`, ...), unique in the app.
    ///
    /// - Returns: the configuration as kept.
    /// - Throws: `NotificationTarget.Invalid` naming the first bad member, or a repeated id.
    func validated() throws(NotificationTarget.Invalid) -> NotificationConfiguration {
        guard self.all.count <= Self.maximumTargets else {
            throw NotificationTarget.Invalid(message: "at most \(Self.maximumTargets) notification targets per app")
        }
        var seen = Set<String>()
        for (role, target) in self.all {
            try target.validate(as: role)
            if let id = target.id, !seen.insert(id).inserted {
                throw NotificationTarget.Invalid(message: "\(role): id \(id.prefix(64)) is used twice")
            }
        }
        var next = 1
        func named(_ targets: [NotificationTarget]) -> [NotificationTarget] {
            targets.map { target in
                guard target.id == nil else { return target }
                var target = target
                while seen.contains("notification-\(next)") { next += 1 }
                target.id = "notification-\(next)"
                seen.insert(target.id!)
                return target
            }
        }
        return NotificationConfiguration(
            webhooks: named(self.webhooks),
            queues: named(self.queues),
            topics: named(self.topics),
            lambdas: named(self.lambdas)
        )
    }
}

extension NotificationConfiguration {
    /// Why a webhook of this configuration may not be delivered to: its URL is MockCDN's own control route.
    ///
    /// - Parameter listener: MockCDN's own listener.
    /// - Returns: the refusal naming the first such webhook; nil when there is none.
    func ownListenerRefusal(_ listener: OwnListener) -> String? {
        self.webhooks.lazy.compactMap { listener.refusal(of: $0.url ?? "", member: "webhooks: url") }.first
    }
}

/// The control routes answer a configuration as it is, every kind written (empty when none).
extension NotificationConfiguration: ResponseEncodable {}
