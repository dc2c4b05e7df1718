import HTTPTypes
import Hummingbird
import MockCDNCore

/// The S3 API surface, an app being a bucket: S3's dispatch before every route (`gate`), the bucket routes
/// (`HEAD|GET|POST|PUT|DELETE /{app}`, POST policy uploads and the buckets' lifecycle among them), ListBuckets,
/// PutObject, CopyObject, DeleteObject, multipart uploads, object ACLs and tags, in S3's XML envelope. Objects
/// are read through the CDN's routes, which take a header-signed S3 request as one more credential
/// (`readCheck`) and hand ListParts, GetObjectAcl and GetObjectTagging back (`listParts`, `subresourceReads`). PUTs to MockCDN's own upload URLs go to `uploadURLPut`, which
/// answers in its own surface's envelope.
struct S3API {
    let apps: AppRegistry
    let store: any ObjectStore
    let clock: MockClock
    let links: LinkSigner
    let remover: ObjectRemover
    let uploads: UploadReceiver
    /// The open multipart uploads.
    let multipart: MultipartUploads
    /// Upload events: S3's notification configuration sets the app's targets there.
    let events: ObjectEvents
    /// How a long CompleteMultipartUpload is answered.
    let keepAlive: KeptAliveAnswer
    let uploadURLPut: @Sendable (Request, AppRequestContext) async throws -> Response

    /// A header-signed GetObject or HeadObject as a media read credential.
    static let readCheck = S3HeaderReadCheck()

    /// S3's dispatch, before every route: operations MockCDN does not do refused, ListBuckets answered.
    ///
    /// - Parameter reserved: first path segments that are not buckets.
    func gate(reserved: Set<String>) -> S3OperationGate {
        S3OperationGate(reserved: reserved, apps: self.apps, lifecycle: self.lifecycle)
    }

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        let group = router.group().add(middleware: AmzRequestID()).add(middleware: ErrorEnvelopeMiddleware<S3Error>())
        BucketController(
            apps: self.apps,
            store: self.store,
            clock: self.clock,
            lifecycle: self.lifecycle,
            batch: BatchDelete(remover: self.remover),
            multipart: self.multipartController,
            form: FormUpload(clock: self.clock, uploads: self.uploads, links: self.links),
            notifications: BucketNotifications(events: self.events)
        ).addRoutes(to: group)
        ObjectController(
            apps: self.apps,
            clock: self.clock,
            remover: self.remover,
            writer: ObjectWriter(
                apps: self.apps,
                clock: self.clock,
                uploads: self.uploads,
                copier: ObjectCopier(store: self.store, events: self.events, clock: self.clock)
            ),
            parts: PartWriter(apps: self.apps, uploads: self.uploads, parts: self.parts),
            multipart: self.multipartController,
            acl: self.aclController,
            tagging: self.taggingController,
            uploadURLPut: self.uploadURLPut
        ).addRoutes(to: group)
        self.multipartController.addRoutes(to: group)
    }

    /// ListParts (`GET /{app}/{key}?uploadId=`), which the CDN's read route hands over, in S3's envelope.
    var listParts: QueryHandoff {
        let controller = self.multipartController
        return QueryHandoff(parameter: "uploadId") { request, context in
            try await ErrorEnvelopeMiddleware<S3Error>().handle(request, context: context) { request, context in
                try await controller.listParts(request, context: context)
            }
        }
    }

    /// GetObjectAcl (`GET /{app}/{key}?acl`) and GetObjectTagging (`?tagging`), which the CDN's read route
    /// hands over, in S3's envelope.
    var subresourceReads: [QueryHandoff] {
        let (acl, tagging) = (self.aclController, self.taggingController)
        return [
            QueryHandoff(parameter: "acl") { request, context in
                try await ErrorEnvelopeMiddleware<S3Error>().handle(request, context: context) { request, context in
                    try await acl.get(request, context: context)
                }
            },
            QueryHandoff(parameter: "tagging") { request, context in
                try await ErrorEnvelopeMiddleware<S3Error>().handle(request, context: context) { request, context in
                    try await tagging.get(request, context: context)
                }
            },
        ]
    }

    private var aclController: ObjectACLController {
        ObjectACLController(apps: self.apps, store: self.store, events: self.events, clock: self.clock)
    }

    private var taggingController: ObjectTaggingController {
        ObjectTaggingController(apps: self.apps, store: self.store, events: self.events, clock: self.clock)
    }

    private var parts: PartStore { PartStore(uploads: self.multipart, store: self.store, clock: self.clock) }

    private var lifecycle: BucketLifecycle {
        BucketLifecycle(apps: self.apps, store: self.store, clock: self.clock, parts: self.parts)
    }

    private var multipartController: MultipartController {
        MultipartController(
            apps: self.apps,
            uploads: self.uploads,
            parts: self.parts,
            links: self.links,
            keepAlive: self.keepAlive
        )
    }
}
