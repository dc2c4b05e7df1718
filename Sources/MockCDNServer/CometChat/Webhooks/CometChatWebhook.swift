import Foundation
import MockCDNCore

/// One CometChat webhook, as the Management API's `apps/{appId}/webhooks` routes create, list and change it
/// (and `apps[].webhooks` in the config file): where it goes, its Basic auth, its retry switch and its
/// triggers.
struct CometChatWebhook: Codable, Sendable, Equatable {
    /// At most 50 characters.
    var id: String
    /// At most 50 characters.
    var name: String
    var webhookURL: String
    var useBasicAuth: Bool?
    var username: String?
    var password: String?
    var enabled: Bool?
    /// Tried again at +10 s and +30 s after a failure; CometChat's default is off.
    var retryOnFailure: Bool?
    /// The triggers it hears (`message_sent`, ...).
    var triggers: [String]?
    var createdAt: Int64?
    var updatedAt: Int64?

    /// The longest `id` and `name`, as CometChat's API allows.
    static let maximumIdentifierLength = 50

    /// The triggers MockCDN takes: CometChat's message triggers, so a set-up that registers several runs.
    static let knownTriggers: Set<String> = [
        "message_sent", "message_edited", "message_deleted", "message_delivery_receipt", "message_read_receipt",
        "message_reaction_added", "message_reaction_removed", "before_message", "after_message",
    ]

    /// Whether it hears `trigger` now.
    func hears(_ trigger: String) -> Bool {
        self.enabled != false && self.triggers?.contains(trigger) == true
    }

    /// The `Authorization` value it sends, when Basic auth is on.
    var authorization: String? {
        guard self.useBasicAuth == true else { return nil }
        let credentials = (self.username ?? "") + ":" + (self.password ?? "")
        return "Basic " + Data(credentials.utf8).base64EncodedString()
    }

    /// Checks the members a create or an update sets.
    ///
    /// - Throws: `Invalid` naming the member.
    func validate() throws(Invalid) {
        for (member, value) in [("id", self.id), ("name", self.name)]
        where value.isEmpty || value.count > Self.maximumIdentifierLength {
            throw Invalid(message: "\(member) is required: 1 to \(Self.maximumIdentifierLength) characters")
        }
        guard let url = URL(string: self.webhookURL), ["http", "https"].contains(url.scheme?.lowercased()),
            let host = url.host, !host.isEmpty, self.webhookURL.utf8.count <= NotificationTarget.maximumTextLength
        else { throw Invalid(message: "webhookURL must be an http:// or https:// URL with a host") }
        if self.useBasicAuth == true, (self.username ?? "").isEmpty {
            throw Invalid(message: "username is required when useBasicAuth is true")
        }
        for trigger in self.triggers ?? [] where !Self.knownTriggers.contains(trigger) {
            throw Invalid(message: "\(trigger.prefix(64)) is not a CometChat trigger (such as message_sent)")
        }
    }

    /// The config file's webhooks (`apps[].webhooks.cometchat`), checked as the management API checks them,
    /// each `name` defaulting to its id.
    ///
    /// - Parameter hooks: the webhooks as the file gives them.
    /// - Returns: the webhooks kept.
    /// - Throws: `Invalid`, naming the member.
    static func configured(_ hooks: [CometChatWebhook]) throws(Invalid) -> [CometChatWebhook] {
        var checked: [CometChatWebhook] = []
        for var hook in hooks {
            if hook.name.isEmpty { hook.name = hook.id }
            try hook.validate()
            checked.append(hook)
        }
        guard Set(hooks.map(\.id)).count == hooks.count else {
            throw Invalid(message: "cometchat: webhook ids must differ")
        }
        return checked
    }

    /// Why a URL of these webhooks may not be delivered to: it is MockCDN's own control route.
    ///
    /// - Parameters:
    ///   - hooks: the webhooks.
    ///   - listener: MockCDN's own listener.
    /// - Returns: the refusal naming the first such URL; nil when there is none.
    static func ownListenerRefusal(_ hooks: [CometChatWebhook], _ listener: OwnListener) -> String? {
        hooks.lazy.compactMap { listener.refusal(of: $0.webhookURL, member: "webhookURL") }.first
    }

    /// A webhook the API or the config file refused.
    struct Invalid: CategorizedError, Equatable {
        let message: String

        var category: ErrorCategory { .invalidInput }
        var publicMessage: String { self.message }
    }
}

extension CometChatWebhook {
    // The config file may leave `name` out: it is then the id.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decode(String.self, forKey: .id)
        self.webhookURL = try container.decode(String.self, forKey: .webhookURL)
        self.name = try container.decodeIfPresent(String.self, forKey: .name) ?? self.id
        self.useBasicAuth = try container.decodeIfPresent(Bool.self, forKey: .useBasicAuth)
        self.username = try container.decodeIfPresent(String.self, forKey: .username)
        self.password = try container.decodeIfPresent(String.self, forKey: .password)
        self.enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled)
        self.retryOnFailure = try container.decodeIfPresent(Bool.self, forKey: .retryOnFailure)
        self.triggers = try container.decodeIfPresent([String].self, forKey: .triggers)
        self.createdAt = try container.decodeIfPresent(Int64.self, forKey: .createdAt)
        self.updatedAt = try container.decodeIfPresent(Int64.self, forKey: .updatedAt)
    }
}
