import HTTPTypes
import Hummingbird
import MockCDNCore

/// CometChat's secure-media surface: settings, FAT minting, media upload, presign, upload URLs, and key
/// listing, in CometChat's envelope. It also hands the CDN its FAT check (`readCheck`), since a FAT
/// authorises media reads too, and the S3 surface the PUTs to its upload URLs (`uploadURLPut`).
struct CometChatAPI {
    let apps: AppRegistry
    let clock: MockClock
    let links: LinkSigner
    let uploads: UploadReceiver
    /// The app's webhooks that the management routes set.
    let hooks: CometChatWebhooks

    /// The FAT as a media read credential.
    static let readCheck = FATReadCheck()

    /// The header a FAT travels in; browsers must be allowed to send it.
    static var fatHeader: HTTPField.Name { FATCredential.headerName }

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        let group = router.group().add(middleware: ErrorEnvelopeMiddleware<CometChatError>())
        let auth = CometChatAuthenticator(apps: self.apps, clock: self.clock)
        KeysController(apps: self.apps).addRoutes(to: group)
        SecureMediaController(
            store: self.uploads.store,
            clock: self.clock,
            links: self.links,
            uploads: self.uploads,
            auth: auth
        ).addRoutes(to: group)
        UploadURLController(auth: auth, links: self.links, state: self.uploads.state).addRoutes(to: group)
        WebhookManagementController(apps: self.apps, clock: self.clock, hooks: self.hooks).addRoutes(to: group)
    }

    /// The files host's reads of media URLs (`appId`/`apiKey` exchange, `?fat=` redirect), which the CDN's read
    /// route hands over.
    var filesHost: [QueryHandoff] {
        FilesHost(apps: self.apps, clock: self.clock, links: self.links, store: self.uploads.store).handoffs
    }

    /// The PUT to one of MockCDN's upload URLs, answered (and refused) in CometChat's envelope: the S3
    /// surface owns `PUT /{app}/{key}` and hands these requests here.
    var uploadURLPut: @Sendable (Request, AppRequestContext) async throws -> Response {
        let controller = PresignedPutController(
            auth: CometChatAuthenticator(apps: self.apps, clock: self.clock),
            links: self.links,
            uploads: self.uploads
        )
        return { request, context in
            try await ErrorEnvelopeMiddleware<CometChatError>().handle(request, context: context) { request, context in
                try await controller.put(request, context: context)
            }
        }
    }
}
