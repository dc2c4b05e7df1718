import Hummingbird
import MockCDNCore

/// `GET /` and `GET /_mockcdn`: what this server is. The root, open like a CDN's, says what it is and where
/// to look; the control index (behind the admin guard off loopback) adds the apps, the clock, the fixtures
/// loaded and the route families. `GET /_mockcdn/openapi.yaml` serves the OpenAPI document of every route.
struct IndexController {
    let apps: AppRegistry
    let clock: MockClock
    let store: any ObjectStore

    struct Root: ResponseEncodable {
        let name = "MockCDN"
        let version = mockCDNVersion
        let description = "A mock CDN and media backend for Stream and CometChat apps, with real signatures and expiry."
        let control = "/_mockcdn"
        let health = "/_mockcdn/health"
        let openapi = "/_mockcdn/openapi.yaml"
    }

    struct App: Encodable {
        let appID: String
        let apiKey: String
        let region: String
        let s3Region: String
    }

    struct Index: ResponseEncodable {
        let name = "MockCDN"
        let version = mockCDNVersion
        let apps: [App]
        /// The MockCDN clock, Unix seconds.
        let clock: Int64
        /// Objects under the default app's `fixtures/`.
        let fixtures: Int
        let routes: [String: String]
    }

    static let routes = [
        "media": "GET|HEAD /{app}/{key} with a FAT, a SigV4 or SigV2 presigned query, or a CloudFront signature",
        "stream": "POST|DELETE /channels/{type}/{id}/image|file, /api/v2/uploads/image|file; GET|PATCH /app",
        "cometchat": "GET /v1/apps/{app}/settings, POST /v1/apps/{app}/fat, POST /{app}/media, "
            + "POST /v1/apps/{app}/presign, POST /v1/apps/{app}/uploads, GET /v1/apps/{app}/keys, "
            + "/apps/{app}/webhooks (webhook management)",
        "control": "/_mockcdn/health, /clock, /clock/advance, /tokens, /requests, /faults, /reset, /objects, "
            + "/events, /deliveries, /apps/{app}/notifications, /webhooks, /verify, /report; GET /metrics",
        "console": "GET /_mockcdn/ui: the web console (objects, upload, live journal, clock, faults, coverage)",
        "openapi": "GET /_mockcdn/openapi.yaml: every route, its parameters and its answers",
    ]

    func addRoutes(root: some RouterMethods<AppRequestContext>, control: some RouterMethods<AppRequestContext>) {
        root.get("/") { _, _ in Root() }
        control.get("") { _, _ in
            let first = self.apps.apps[0]
            return Index(
                apps: self.apps.apps.map {
                    App(
                        appID: $0.id,
                        apiKey: $0.configuration.apiKey,
                        region: $0.configuration.region,
                        s3Region: $0.configuration.s3Region
                    )
                },
                clock: self.clock.unixSeconds,
                fixtures: try await self.store.list(prefix: first.id + "/fixtures/").count,
                routes: Self.routes
            )
        }
        control.get("openapi.yaml") { _, _ in
            guard let document = await ServerResources.read("openapi.yaml") else {
                throw HTTPError(.notFound, message: "openapi.yaml is not installed next to the mockcdn binary")
            }
            return Response(
                status: .ok,
                headers: [.contentType: "application/yaml; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: document))
            )
        }
    }
}
