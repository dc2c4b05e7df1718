import Foundation
import Hummingbird
import MockCDNCore

/// `POST /_mockcdn/tokens`: Stream user and server JWTs and File Access Tokens, minted at the server's clock,
/// so a test suite in any language gets credentials that agree with the clock it moves.
struct TokensController {
    let apps: AppRegistry
    let clock: MockClock

    struct TokenRequest: Decodable {
        let kind: String
        let userID: String?
        let appID: String?
        let ttl: Int64?

        enum CodingKeys: String, CodingKey {
            case kind, ttl
            case userID = "user_id"
            case appID = "app_id"
        }
    }

    static let shape = MemberShape.object(["kind": .value, "user_id": .value, "app_id": .value, "ttl": .value])

    struct Minted: ResponseEncodable {
        let token: String
        let kind: String
        let issuedAt: Int64
        /// Nil for a JWT without `exp`.
        let expiresAt: Int64?
    }

    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.post("tokens") { request, _ in try await self.mint(request) }
    }

    func mint(_ request: Request) async throws -> Minted {
        let body = try await request.decodeJSONBody(TokenRequest.self, shape: Self.shape)
        guard let app = body.appID.map({ self.apps.configuredApp(id: $0) }) ?? self.apps.apps.first else {
            throw HTTPError(.badRequest, message: "app_id \(body.appID?.prefix(64) ?? "") is not an app of this server")
        }
        if let ttl = body.ttl, !(1...FileAccessToken.maximumTTL).contains(ttl) {
            throw HTTPError(.badRequest, message: "ttl must be 1...\(FileAccessToken.maximumTTL) seconds")
        }
        let now = self.clock.unixSeconds
        func user() throws -> String {
            guard let user = body.userID, !user.isEmpty, user.count <= 255 else {
                throw HTTPError(
                    .badRequest,
                    message: "user_id is required for a \(body.kind) token: 1 to 255 characters"
                )
            }
            return user
        }
        switch body.kind {
        case "user", "server":
            let token = app.configuration.streamToken(
                user: body.kind == "user" ? try user() : nil,
                issuedAt: now,
                lifetime: body.ttl
            )
            return Minted(token: token, kind: body.kind, issuedAt: now, expiresAt: body.ttl.map { now + $0 })
        case "fat":
            let ttl = body.ttl ?? FileAccessToken.defaultTTL
            let token = app.configuration.fileAccessToken(user: try user(), issuedAt: now, lifetime: ttl)
            return Minted(token: token, kind: "fat", issuedAt: now, expiresAt: now + ttl)
        default:
            throw HTTPError(.badRequest, message: "kind must be user, server or fat")
        }
    }
}
