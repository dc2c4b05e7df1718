import HTTPTypes
import Hummingbird
import MockCDNCore

/// Stream's REST API surface: app settings, channel members, uploads and deletes, in Stream's envelope.
struct StreamAPI {
    let apps: AppRegistry
    let links: LinkSigner
    let variants: VariantCache
    let uploads: UploadReceiver
    let posters: VideoPosters
    /// The app's webhook settings (`webhook_url`, `event_hooks`) that `PATCH /app` sets.
    let hooks: StreamWebhooks

    /// The header Stream's SDKs name their auth type in; browsers must be allowed to send it.
    static var authTypeHeader: HTTPField.Name { StreamAuthenticator.authType }

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        let group = router.group().add(middleware: ErrorEnvelopeMiddleware<StreamAPIError>())
        let auth = StreamAuthenticator(apps: self.apps, clock: self.uploads.clock)
        StreamAppController(
            auth: auth,
            store: self.uploads.store,
            clock: self.uploads.clock,
            state: self.uploads.state,
            links: self.links,
            hooks: self.hooks
        ).addRoutes(to: group)
        StreamUploadController(
            auth: auth,
            links: self.links,
            variants: self.variants,
            uploads: self.uploads,
            posters: self.posters
        ).addRoutes(to: group)
    }
}
