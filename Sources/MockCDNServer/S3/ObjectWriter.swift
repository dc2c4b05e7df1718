import Hummingbird
import MockCDNCore

/// PutObject (`PUT /{app}/{key}`): signed in the `Authorization` header (SigV4) or presigned (SigV4,
/// SigV2) with the app's keys. The body streams into the store under the app's upload policy, its signed
/// payload hash and checksums checked before it replaces anything; `If-None-Match: *` and `If-Match` make
/// the write conditional. The answer is S3's: 200 with the ETag, no body.
struct ObjectWriter {
    let apps: AppRegistry
    let clock: MockClock
    let uploads: UploadReceiver

    func put(_ request: Request, context: AppRequestContext) async throws -> Response {
        let app = try S3Authenticator.app(context, in: self.apps)
        let key = try ObjectKey(app: app.id, percentEncodedPath: request.uri.path)
        let query = context.query(of: request)
        let now = self.clock.unixSeconds
        let promise: PayloadPromise
        let source: CredentialSource
        if HeaderSignature.isPresent(in: request) {
            let signed = try HeaderSignature.verify(request, app: app, query: query, now: now)
            promise = try PayloadPromise(payloadHash: signed.payloadHash)
            source = .s3HeaderSigV4
        } else {
            source = try PresignedRequest.verify(request, app: app, key: key, query: query, now: now)
            promise = .unsigned
        }
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            if case .streaming(let mode) = promise {
                throw S3Error(
                    status: HTTPResponse.Status(code: 501),
                    code: "NotImplemented",
                    message: "MockCDN does not take \(mode) bodies yet"
                )
            }
            let condition = try WriteCondition(request)
            try await condition.check(self.uploads.store, key: key)
            let upload = RawUpload(
                extras: try ObjectHeaders.extras(from: request),
                allowsEmpty: true,
                seal: { [store = self.uploads.store] summary, _ in
                    try promise.check(summary)
                    try await condition.check(store, key: key)
                }
            )
            let object = try await self.uploads.receiveBody(request, app: app, key: key, upload: upload) { $0 }
            return Response(status: .ok, headers: [.eTag: object.etag])
        }
    }
}
