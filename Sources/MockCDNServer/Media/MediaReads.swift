import Hummingbird
import MockCDNCore

/// The CDN read surface: `GET|HEAD /{app}/{key}` with every credential a read may carry, ranges,
/// conditionals and image variants, in S3's XML envelope.
struct MediaReads {
    let apps: AppRegistry
    let store: any ObjectStore
    let clock: MockClock
    let links: LinkSigner
    let variants: VariantCache
    let verified: VerifiedCredentialCache
    /// Credentials other surfaces define (CometChat's FAT), asked before the CDN's own.
    let leading: [any ReadCredentialCheck]
    /// GETs another surface answers (S3's ListParts, `?uploadId=`), before any read.
    let handoffs: [QueryHandoff]
    /// Told how long each render took.
    let onRender: @Sendable (Duration) -> Void

    /// The route of a read as the router names it (`context.endpointPath`): the label `/metrics` counts it by.
    static let route = "/{app}/**"

    /// The one check of a read's credentials, the route's and the fast path's.
    var authorizer: MediaReadAuthorizer {
        MediaReadAuthorizer(clock: self.clock, links: self.links, verified: self.verified, leading: self.leading)
    }

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        CDNController(
            apps: self.apps,
            store: self.store,
            variants: self.variants,
            handoffs: self.handoffs,
            onRender: self.onRender,
            authorizer: self.authorizer
        ).addRoutes(
            to: router.group().add(middleware: AmzRequestID()).add(middleware: ErrorEnvelopeMiddleware<S3Error>())
        )
    }
}
