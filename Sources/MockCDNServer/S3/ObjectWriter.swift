import HTTPTypes
import Hummingbird
import MockCDNCore

/// PutObject and CopyObject (`PUT /{app}/{key}`, `ObjectCopier` when `x-amz-copy-source` names a source):
/// signed in the `Authorization` header (SigV4, SigV2) or presigned (SigV4, SigV2) with the app's keys. The
/// body streams into the store under the app's upload policy, its signed
/// payload hash and checksums checked before it replaces anything; `If-None-Match: *` and `If-Match` make
/// the write conditional. The answer is S3's: 200 with the ETag, no body.
struct ObjectWriter {
    /// The object's length under aws-chunked framing, which `Content-Length` counts too.
    static let decodedLengthHeader = HTTPField.Name("x-amz-decoded-content-length")!

    let apps: AppRegistry
    let clock: MockClock
    let uploads: UploadReceiver
    let copier: ObjectCopier

    func put(_ request: Request, context: AppRequestContext) async throws -> Response {
        let app = try S3Authenticator.app(context, in: self.apps)
        let key = try ObjectKey(app: app.id, percentEncodedPath: request.uri.path)
        let query = context.query(of: request)
        let (source, promise) = try S3Authenticator.authenticateBody(
            request,
            app: app,
            key: key,
            query: query,
            now: self.clock.unixSeconds
        )
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            if request.headers[ObjectCopier.sourceHeader] != nil {
                return try await self.copier.copy(request, app: app, key: key)
            }
            let condition = try WriteCondition(request)
            var streaming: (mode: AWSChunkedMode, seed: SigV4.StreamingSeed)?
            if case .streaming(let mode, let seed) = promise { streaming = (mode, seed) }
            let digests = try PayloadDigests(request, query: query, trailers: streaming?.mode.hasTrailer ?? false)
            try await condition.check(self.uploads.store, key: key)
            var upload = RawUpload(
                extras: try ObjectHeaders.extras(from: request),
                allowsEmpty: true,
                seal: { [store = self.uploads.store] summary, attributes in
                    try promise.check(summary)
                    try digests.seal(&attributes)
                    try await condition.check(store, key: key)
                }
            )
            let object: ObjectMetadata
            if let streaming {
                let decodedLength = try AWSChunkedDecoder.decodedLength(request.headers[Self.decodedLengthHeader])
                upload.declaredLength = Int(clamping: decodedLength)
                object = try await self.uploads.receiveBody(request, app: app, key: key, upload: upload) { body in
                    DigestedBody(
                        base: try AWSChunkedBody(
                            body,
                            mode: streaming.mode,
                            seed: streaming.seed,
                            decodedLength: decodedLength,
                            onTrailers: digests.take
                        ),
                        digests: digests
                    )
                }
            } else {
                object = try await self.uploads.receiveBody(request, app: app, key: key, upload: upload) { body in
                    DigestedBody(base: body, digests: digests)
                }
            }
            var headers = digests.answerHeaders()
            headers[.eTag] = object.etag
            return Response(status: .ok, headers: headers)
        }
    }
}
