import Foundation
import Hummingbird
import MockCDNCore

/// `PUT /{app}/{key}` with S3 query authentication: the upload URLs `POST /v1/apps/{app}/uploads` hands out,
/// and presigned PUTs that boto3 or awscli make with the app's key and secret (SigV4 or SigV2, path-style,
/// the app id as bucket). The body streams into the store under the app's upload policy and a stall timeout;
/// the answer carries the media URL in the app's `media_url_access` mode. Errors use CometChat's envelope
/// and codes.
struct PresignedPutController {
    let auth: CometChatAuthenticator
    let links: LinkSigner
    let uploads: UploadReceiver

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.put(":app/**") { request, context in try await self.put(request, context: context) }
    }

    struct PutResponse: ResponseEncodable {
        let url: String
        let key: String
        let size: Int
        let contentType: String
    }

    func put(_ request: Request, context: AppRequestContext) async throws -> Response {
        let app = try self.auth.app(context)
        let key = try ObjectKey(app: app.id, percentEncodedPath: request.uri.path)
        let query = context.query(of: request)
        let now = self.auth.clock.unixSeconds
        let source = try PresignedRequest.verify(request, app: app, key: key, query: query, now: now)
        // SigV4 signs every parameter, so these are MockCDN's own as it made them; SigV2 signs none of them.
        let signed = source == .presigned
        let owner = signed ? query.values(LinkSigner.ownerParameter).first : nil
        var bound: Int?
        if signed, let text = query.values(LinkSigner.maximumBytesParameter).first {
            guard let bytes = Int(text), bytes >= 0 else {
                throw CometChatError.badRequest("\(LinkSigner.maximumBytesParameter) must be a number of bytes")
            }
            bound = bytes
        }
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            let object = try await self.uploads.receiveBody(request, app: app, key: key, bound: bound, owner: owner)
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
