import HTTPTypes
import Hummingbird
import MockCDNCore

/// The S3 API surface, an app being a bucket: the bucket routes (`HEAD|GET /{app}`), in S3's XML envelope.
/// Objects are read through the CDN's routes, which take a header-signed S3 request as one more credential
/// (`readCheck`).
struct S3API {
    let apps: AppRegistry
    let store: any ObjectStore
    let clock: MockClock

    /// A header-signed GetObject or HeadObject as a media read credential.
    static let readCheck = S3HeaderReadCheck()

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        BucketController(apps: self.apps, store: self.store, clock: self.clock)
            .addRoutes(to: router.group().add(middleware: ErrorEnvelopeMiddleware<S3Error>()))
    }
}
