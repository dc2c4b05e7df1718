import HTTPTypes
import Hummingbird
import MockCDNCore

/// PutObject and CopyObject (`PUT /{app}/{key}`, `ObjectCopier` when `x-amz-copy-source` names a source):
/// signed in the `Authorization` header (SigV4, SigV2) or presigned (SigV4, SigV2) with the app's keys. The
/// body streams into the store under the app's upload policy (`S3Payload`: aws-chunked framing off, digests
/// taken), its signed payload hash and checksums checked before it replaces anything; `If-None-Match: *` and
/// `If-Match` make the write conditional; `x-amz-acl`, `x-amz-grant-*` and `x-amz-tagging` give the object its
/// ACL and tags (`WriteAccess`). The answer is S3's: 200 with the ETag (the body's MD5), no body.
struct ObjectWriter {
    let apps: AppRegistry
    let clock: MockClock
    let uploads: UploadReceiver
    let copier: ObjectCopier

    func put(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (authenticated, promise) = try await S3Authenticator.objectWithBody(
            request,
            context: context,
            apps: self.apps,
            now: self.clock.unixSeconds
        )
        let (app, key, query) = (authenticated.app, authenticated.key, authenticated.query)
        return try await CredentialNote.answer(authorisedBy: authenticated.source, request: request, context: context) {
            if request.headers[ObjectCopier.sourceHeader] != nil {
                return try await self.copier.copy(request, app: app, key: key)
            }
            let condition = try WriteCondition(request)
            let payload = try S3Payload(request, query: query, promise: promise)
            try await condition.check(self.uploads.store, key: key)
            let upload = RawUpload(
                limit: try await S3Limits.request(to: key, app: app, uploads: self.uploads),
                extras: try WriteAccess(request.headers).applied(to: try ObjectHeaders.extras(from: request)),
                allowsEmpty: true,
                keepsDeclaredType: true,
                declaredLength: payload.declaredLength,
                digest: payload.digest,
                seal: { [store = self.uploads.store] summary, attributes in
                    try payload.seal(summary, &attributes)
                    try await condition.check(store, key: key)
                }
            )
            // The upload path's stages, in order: admission, decoding (the route's), then store, seal and event.
            let (admitted, incoming) = try await self.uploads.admit(request, app: app, key: key, upload: upload)
            let body = try payload.body(admitted.wire)
            let object = try await self.uploads.keep(incoming, body: body, admitted: admitted)
            var headers = payload.digests.answerHeaders()
            headers[.eTag] = object.etag
            return Response(status: .ok, headers: headers)
        }
    }
}
