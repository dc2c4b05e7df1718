import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore

/// CometChat's webhook management (the Management API's `apps/{appId}/webhooks` routes, on
/// `apimgmt.cometchat.io`), on MockCDN's base URL: a backend's set-up code runs with only its host changed.
/// The `key` and `secret` headers are the app's API key and secret (CometChat's are management keys).
/// Answers copy the documented examples, their odd shapes included (a create answers an array).
struct WebhookManagementController {
    let apps: AppRegistry
    let clock: MockClock
    let hooks: CometChatWebhooks

    static let keyHeader = HTTPField.Name("key")!
    static let secretHeader = HTTPField.Name("secret")!

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("apps/:app/webhooks") { request, context in try await self.create(request, context: context) }
        router.get("apps/:app/webhooks") { request, context in try self.list(request, context: context) }
        router.get("apps/:app/webhooks/:webhook") { request, context in try self.read(request, context: context) }
        router.put("apps/:app/webhooks/:webhook") { request, context in
            try await self.update(request, context: context)
        }
        router.delete("apps/:app/webhooks/:webhook") { request, context in try self.remove(request, context: context) }
        router.post("apps/:app/webhooks/:webhook/triggers") { request, context in
            try await self.changeTriggers(request, context: context, adding: true)
        }
        router.get("apps/:app/webhooks/:webhook/triggers") { request, context in
            try self.triggers(request, context: context)
        }
        router.delete("apps/:app/webhooks/:webhook/triggers") { request, context in
            try await self.changeTriggers(request, context: context, adding: false)
        }
    }

    /// What a create or an update sends.
    struct WebhookBody: Decodable {
        var id: String?
        var name: String?
        var webhookURL: String?
        var useBasicAuth: Bool?
        var username: String?
        var password: String?
        var enabled: Bool?
        var retryOnFailure: Bool?
    }

    struct TriggersBody: Decodable {
        var triggerIds: [String]?
    }

    static let webhookShape = MemberShape.object(
        Dictionary(
            uniqueKeysWithValues: [
                "id", "name", "webhookURL", "useBasicAuth", "username", "password", "enabled",
                "retryOnFailure",
            ].map { ($0, MemberShape.value) }
        )
    )

    /// A webhook as the API answers it: no password.
    static func view(_ hook: CometChatWebhook) -> [String: Any] {
        var view: [String: Any] = [
            "id": hook.id, "name": hook.name, "webhookURL": hook.webhookURL, "useBasicAuth": hook.useBasicAuth ?? false,
            "enabled": hook.enabled ?? true, "retryOnFailure": hook.retryOnFailure ?? false,
        ]
        if let username = hook.username { view["username"] = username }
        if let created = hook.createdAt { view["createdAt"] = created }
        if let updated = hook.updatedAt { view["updatedAt"] = updated }
        return view
    }

    func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let app = try self.authorised(request, context: context)
        let body = try await request.decodeJSONBody(WebhookBody.self, shape: Self.webhookShape)
        let now = self.clock.unixSeconds
        let hook = CometChatWebhook(
            id: body.id ?? "",
            name: body.name ?? "",
            webhookURL: body.webhookURL ?? "",
            useBasicAuth: body.useBasicAuth ?? false,
            username: body.username,
            password: body.password,
            enabled: body.enabled ?? true,
            retryOnFailure: body.retryOnFailure ?? false,
            triggers: [],
            createdAt: now,
            updatedAt: now
        )
        try self.validate(hook)
        try self.hooks.change(of: app.id) { hooks in
            guard !hooks.contains(where: { $0.id == hook.id }) else {
                throw CometChatError.badRequest("a webhook with id \(hook.id) already exists")
            }
            guard hooks.count < CometChatWebhooks.maximumWebhooks else {
                throw CometChatError.badRequest(
                    "an app has at most \(CometChatWebhooks.maximumWebhooks) webhooks"
                )
            }
            hooks.append(hook)
        }
        return try Self.json([["data": Self.view(hook)]], status: .ok)
    }

    func list(_ request: Request, context: AppRequestContext) throws -> Response {
        let app = try self.authorised(request, context: context)
        let query = context.query(of: request)
        let perPage = min(max(Int(query.first("perPage") ?? "") ?? 100, 1), 1000)
        let search = query.first("searchKey") ?? ""
        let all = self.hooks.webhooks(of: app.id).filter {
            search.isEmpty || $0.id.localizedCaseInsensitiveContains(search)
                || $0.name.localizedCaseInsensitiveContains(search)
        }
        let page = all.prefix(perPage)
        return try Self.json(
            [
                "data": page.map(Self.view),
                "meta": [
                    "pagination": [
                        "total": all.count, "count": page.count, "per_page": perPage, "current_page": 1,
                        "total_pages": max(1, (all.count + perPage - 1) / perPage),
                    ]
                ],
            ],
            status: .ok
        )
    }

    func read(_ request: Request, context: AppRequestContext) throws -> Response {
        let app = try self.authorised(request, context: context)
        let hook = try self.webhook(context, app: app)
        return try Self.json(["data": [["data": Self.view(hook)]]], status: .ok)
    }

    func update(_ request: Request, context: AppRequestContext) async throws -> Response {
        let app = try self.authorised(request, context: context)
        let id = try context.parameters.require("webhook")
        let body = try await request.decodeJSONBody(WebhookBody.self, shape: Self.webhookShape)
        let now = self.clock.unixSeconds
        let updated: CometChatWebhook = try self.hooks.change(of: app.id) { hooks in
            guard let index = hooks.firstIndex(where: { $0.id == id }) else {
                throw CometChatError.notFound("no webhook \(id.prefix(64))")
            }
            var hook = hooks[index]
            if let name = body.name { hook.name = name }
            if let url = body.webhookURL { hook.webhookURL = url }
            if let basic = body.useBasicAuth { hook.useBasicAuth = basic }
            if let username = body.username { hook.username = username }
            if let password = body.password { hook.password = password }
            if let enabled = body.enabled { hook.enabled = enabled }
            if let retry = body.retryOnFailure { hook.retryOnFailure = retry }
            hook.updatedAt = now
            try self.validate(hook)
            hooks[index] = hook
            return hook
        }
        return try Self.json(["data": [["data": Self.view(updated)]]], status: .ok)
    }

    func remove(_ request: Request, context: AppRequestContext) throws -> Response {
        let app = try self.authorised(request, context: context)
        let id = try context.parameters.require("webhook")
        try self.hooks.change(of: app.id) { hooks in
            guard hooks.contains(where: { $0.id == id }) else {
                throw CometChatError.notFound("no webhook \(id.prefix(64))")
            }
            hooks.removeAll { $0.id == id }
        }
        return try Self.json(["data": ["success": true, "message": "Deleted Webhook successfully."]], status: .ok)
    }

    func changeTriggers(_ request: Request, context: AppRequestContext, adding: Bool) async throws -> Response {
        let app = try self.authorised(request, context: context)
        let id = try context.parameters.require("webhook")
        let body = try await request.decodeJSONBody(
            TriggersBody.self,
            shape: .object(["triggerIds": .list(.value)])
        )
        guard let triggers = body.triggerIds, !triggers.isEmpty else {
            throw CometChatError.badRequest("triggerIds must name at least one trigger")
        }
        for trigger in triggers where !CometChatWebhook.knownTriggers.contains(trigger) {
            throw CometChatError.badRequest("\(trigger.prefix(64)) is not a CometChat trigger (such as message_sent)")
        }
        try self.hooks.change(of: app.id) { hooks in
            guard let index = hooks.firstIndex(where: { $0.id == id }) else {
                throw CometChatError.notFound("no webhook \(id.prefix(64))")
            }
            var kept = hooks[index].triggers ?? []
            if adding {
                kept.append(contentsOf: triggers.filter { !kept.contains($0) })
            } else {
                kept.removeAll { triggers.contains($0) }
            }
            hooks[index].triggers = kept
        }
        let verb = adding ? "added" : "removed"
        var answer: [String: Any] = [:]
        for trigger in triggers {
            answer[trigger] = ["success": true, "message": "Triggers has been \(verb) successfully."]
        }
        return try Self.json(["data": answer], status: .ok)
    }

    func triggers(_ request: Request, context: AppRequestContext) throws -> Response {
        let app = try self.authorised(request, context: context)
        let hook = try self.webhook(context, app: app)
        let triggers = hook.triggers ?? []
        return try Self.json(
            [
                "data": triggers.map { ["id": $0, "description": $0.replacingOccurrences(of: "_", with: " ")] },
                "meta": [
                    "pagination": [
                        "total": triggers.count, "count": triggers.count, "per_page": 100, "current_page": 1,
                        "total_pages": 1,
                    ]
                ],
            ],
            status: .ok
        )
    }

    // MARK: - Helpers

    /// The path's app, when the `key` and `secret` headers are its API key and secret.
    private func authorised(_ request: Request, context: AppRequestContext) throws -> MediaApp {
        let appID = try context.parameters.require("app")
        guard let app = self.apps.configuredApp(id: appID) else { throw CometChatError.appNotFound(appID) }
        guard let key = request.headers[Self.keyHeader], let secret = request.headers[Self.secretHeader] else {
            throw CometChatError.unauthorized("the key and secret headers are required")
        }
        guard key == app.configuration.apiKey,
            SecureBytes.constantTimeEqual(Array(secret.utf8), Array(app.configuration.apiSecret.utf8))
        else { throw CometChatError.unauthorized("the key and secret headers do not match app \(app.id)") }
        return app
    }

    private func webhook(_ context: AppRequestContext, app: MediaApp) throws -> CometChatWebhook {
        let id = try context.parameters.require("webhook")
        guard let hook = self.hooks.webhooks(of: app.id).first(where: { $0.id == id }) else {
            throw CometChatError.notFound("no webhook \(id.prefix(64))")
        }
        return hook
    }

    /// Checks a webhook's members, and that its URL is not one of MockCDN's own control routes.
    private func validate(_ hook: CometChatWebhook) throws {
        try hook.validate()
        if let refusal = self.hooks.listener.refusal(of: hook.webhookURL, member: "webhookURL") {
            throw CometChatError.badRequest(refusal)
        }
    }

    private static func json(_ body: Any, status: HTTPResponse.Status) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
