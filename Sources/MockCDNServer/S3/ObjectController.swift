import Hummingbird
import MockCDNCore

/// The object-level S3 routes besides reads (which the CDN serves): PutObject (`PUT /{app}/{key}`),
/// DeleteObject (`DELETE /{app}/{key}`), and with `?uploadId=` a multipart upload's UploadPart and
/// AbortMultipartUpload, with `?acl` PutObjectAcl and with `?tagging` PutObjectTagging and DeleteObjectTagging;
/// signed in the `Authorization` header (SigV4) or presigned (SigV4, SigV2), with the app's keys. A PUT to one of MockCDN's own upload URLs goes to `uploadURLPut`, in its surface's envelope.
struct ObjectController {
    let apps: AppRegistry
    let clock: MockClock
    let remover: ObjectRemover
    let writer: ObjectWriter
    let parts: PartWriter
    let multipart: MultipartController
    let acl: ObjectACLController
    let tagging: ObjectTaggingController
    let uploadURLPut: @Sendable (Request, AppRequestContext) async throws -> Response

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.delete(":app/**") { request, context in
            let query = context.query(of: request)
            if query.decoded.contains(where: { $0.name == "tagging" }) {
                return try await self.tagging.delete(request, context: context)
            }
            if query.first("uploadId") != nil {
                return try await self.multipart.abort(request, context: context)
            }
            return try await self.delete(request, context: context)
        }
        router.put(":app/**") { request, context in
            let query = context.query(of: request)
            if LinkSigner.isUploadURL(query) {
                return try await self.uploadURLPut(request, context)
            }
            // S3's gate has refused every other sub-resource before the route.
            if query.decoded.contains(where: { $0.name == "acl" }) {
                return try await self.acl.put(request, context: context)
            }
            if query.decoded.contains(where: { $0.name == "tagging" }) {
                return try await self.tagging.put(request, context: context)
            }
            if query.first("uploadId") != nil {
                return try await self.parts.put(request, context: context)
            }
            return try await self.writer.put(request, context: context)
        }
    }

    /// 204 whether or not the object was there, as S3 answers; its variants and poster go with it.
    private func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let authenticated = try await S3Authenticator.object(
            request,
            context: context,
            apps: self.apps,
            now: self.clock.unixSeconds
        )
        return try await CredentialNote.answer(authorisedBy: authenticated.source, request: request, context: context) {
            try await self.remover.remove(authenticated.key)
            return Response(status: .noContent)
        }
    }
}
