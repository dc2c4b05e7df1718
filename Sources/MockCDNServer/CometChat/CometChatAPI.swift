import HTTPTypes
import Hummingbird
import MockCDNCore

/// CometChat's secure-media surface: settings, FAT minting, media upload, presign, upload URLs and the
/// presigned PUTs they lead to, and key listing, in CometChat's envelope. It also hands the CDN its FAT
/// check (`readCheck`), since a FAT authorises media reads too.
struct CometChatAPI {
    let apps: AppRegistry
    let clock: MockClock
    let links: LinkSigner
    let uploads: UploadReceiver

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
        PresignedPutController(auth: auth, links: self.links, uploads: self.uploads).addRoutes(to: group)
    }
}
