import Foundation
import Hummingbird
import MockCDNCore

/// `PUT /{app}/{key}` to one of MockCDN's upload URLs, the ones `POST /v1/apps/{app}/uploads` hands out
/// (`LinkSigner.isUploadURL`; the S3 surface owns the route and hands these over). The body streams into
/// the store under the app's upload policy, the URL's byte bound and a stall timeout; the answer carries the
/// media URL in the app's `media_url_access` mode. Errors use CometChat's envelope and codes.
struct PresignedPutController {
    let auth: CometChatAuthenticator
    let links: LinkSigner
    let uploads: UploadReceiver

    struct PutResponse: ResponseEncodable {
        let url: String
        let key: String
        let size: Int
        let contentType: String
    }

    func put(_ request: Request, context: AppRequestContext) async throws -> Response {
        let app = try self.auth.app(context)
        let key = try ObjectKey(app: app.id, mediaPath: request.uri.path)
        let query = context.query(of: request)
        let now = self.auth.clock.unixSeconds
        let source = try PresignedRequest.verify(request, app: app, key: key, query: query, now: now)
        // SigV4 signs every parameter, so these are MockCDN's own as it made them.
        var upload = RawUpload(owner: query.first(LinkSigner.ownerParameter))
        if let text = query.first(LinkSigner.maximumBytesParameter) {
            guard let bytes = Int(text), bytes >= 0 else {
                throw CometChatError.badRequest("\(LinkSigner.maximumBytesParameter) must be a number of bytes")
            }
            upload.bound = bytes
        }
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            // The upload path's stages: admission, then store and event; the body is stored as it arrives.
            let (admitted, incoming) = try await self.uploads.admit(request, app: app, key: key, upload: upload)
            let object = try await self.uploads.keep(incoming, body: admitted.wire, admitted: admitted)
            var response = try PutResponse(
                url: self.links.mediaURL(app: app, key: key, now: now, base: self.links.base(for: request)),
                key: key.rawValue,
                size: object.size,
                contentType: object.contentType
            ).response(from: request, context: context)
            response.headers[.eTag] = object.etag
            return response
        }
    }
}
