import Hummingbird
import MockCDNCore

/// `GET /v1/apps/{app}/keys`: an app's CloudFront public keys, so clients and tools can verify links.
struct KeysController {
    let apps: AppRegistry

    struct KeysResponse: ResponseEncodable {
        struct Key: Encodable {
            let id: String
            let status: String
            /// `RSA` or `ECDSA-P256`: how the key's signatures are checked (the PEM says it too).
            let algorithm: String
            let publicKey: String
        }

        let appID: String
        let keys: [Key]
    }

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("v1/apps/:app/keys") { _, context in
            let appID = try context.parameters.require("app")
            guard let app = self.apps.configuredApp(id: appID) else {
                throw CometChatError.appNotFound(appID)
            }
            return KeysResponse(
                appID: app.id,
                keys: try app.keyPairs.map {
                    .init(
                        id: $0.id,
                        status: $0.status.rawValue,
                        algorithm: $0.key.algorithm,
                        publicKey: try $0.key.publicKeyPEM
                    )
                }
            )
        }
    }
}
