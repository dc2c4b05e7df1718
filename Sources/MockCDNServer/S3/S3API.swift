import HTTPTypes
import Hummingbird
import MockCDNCore

/// The S3 API surface, an app being a bucket: the bucket routes (`HEAD|GET|POST /{app}`, POST policy uploads
/// among them), PutObject and DeleteObject, in S3's XML envelope. Objects are read through the CDN's routes, which take a header-signed
/// S3 request as one more credential (`readCheck`). PUTs to MockCDN's own upload URLs go to
/// `uploadURLPut`, which answers in its own surface's envelope.
struct S3API {
    let apps: AppRegistry
    let store: any ObjectStore
    let clock: MockClock
    let remover: ObjectRemover
    let uploads: UploadReceiver
    /// The object URLs a POST upload answers with.
    let links: LinkSigner
    let uploadURLPut: @Sendable (Request, AppRequestContext) async throws -> Response

    /// A header-signed GetObject or HeadObject as a media read credential.
    static let readCheck = S3HeaderReadCheck()

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        let group = router.group().add(middleware: ErrorEnvelopeMiddleware<S3Error>())
        BucketController(
            apps: self.apps,
            store: self.store,
            clock: self.clock,
            batch: BatchDelete(remover: self.remover),
            form: FormUpload(clock: self.clock, uploads: self.uploads, links: self.links)
        ).addRoutes(to: group)
        ObjectController(
            apps: self.apps,
            clock: self.clock,
            remover: self.remover,
            writer: ObjectWriter(
                apps: self.apps,
                clock: self.clock,
                uploads: self.uploads,
                copier: ObjectCopier(store: self.store, clock: self.clock)
            ),
            uploadURLPut: self.uploadURLPut
        ).addRoutes(to: group)
    }
}
