import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore

/// The bucket-level S3 routes, an app being the bucket (path-style `/{app}`): CreateBucket (`PUT`) and
/// DeleteBucket (`DELETE`: `BucketLifecycle`), HeadBucket (`HEAD`),
/// GetBucketLocation (`GET ?location`), ListObjectsV2 (`GET ?list-type=2`), ListObjects (`GET`),
/// DeleteObjects (`POST ?delete`), PostObject (`POST` with a `multipart/form-data` body: `FormUpload`) and
/// Get/PutBucketNotificationConfiguration (`GET|PUT ?notification`: `BucketNotifications`).
/// Each needs the app's credentials, signed in the `Authorization` header (SigV4, SigV2) or presigned (SigV4),
/// or, for PostObject, a POST policy signed with them. ListMultipartUploads (`GET ?uploads`) is
/// `MultipartController`'s.
struct BucketController {
    let apps: AppRegistry
    let store: any ObjectStore
    let clock: MockClock
    /// CreateBucket, DeleteBucket.
    let lifecycle: BucketLifecycle
    let batch: BatchDelete
    let multipart: MultipartController
    let form: FormUpload
    let notifications: BucketNotifications

    /// The most keys one page lists, as on S3.
    static let maximumKeys = 1000

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.head(":app") { request, context in try await self.answer(request, context: context, head: true) }
        router.get(":app") { request, context in try await self.answer(request, context: context, head: false) }
        router.post(":app") { request, context in try await self.post(request, context: context) }
        router.put(":app") { request, context in try await self.put(request, context: context) }
        router.delete(":app") { request, context in try await self.lifecycle.delete(request, context: context) }
    }

    /// `PUT /{app}?notification`: PutBucketNotificationConfiguration; `PUT /{bucket}`: CreateBucket
    /// (`S3OperationGate` refuses the other bucket PUTs first).
    private func put(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = context.query(of: request)
        guard query.decoded.contains(where: { $0.name == "notification" }) else {
            return try await self.lifecycle.create(request, context: context)
        }
        let app = try await S3Authenticator.app(context, in: self.apps)
        let body = try await S3XML.document(of: request, upTo: BucketNotifications.maximumBodyBytes)
        let source = try await S3Authenticator.authenticate(
            request,
            app: app,
            key: nil,
            query: query,
            now: self.clock.unixSeconds,
            payload: body
        )
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            try await PayloadDigests.checkDocument(body, of: request, query: query)
            return try await self.notifications.put(body, app: app)
        }
    }

    /// `POST /{app}?delete`: DeleteObjects; `POST /{app}`: PostObject, whose body must be a form (S3's 412
    /// otherwise). `S3OperationGate` refuses the other bucket POSTs first.
    private func post(_ request: Request, context: AppRequestContext) async throws -> Response {
        let app = try await S3Authenticator.app(context, in: self.apps)
        let query = context.query(of: request)
        guard query.decoded.contains(where: { $0.name == "delete" }) else {
            guard FormUpload.isForm(request) else {
                throw S3Error.preconditionFailed(
                    condition: "Bucket POST must be of the enclosure-type multipart/form-data"
                )
            }
            return try await self.form.post(request, app: app, context: context)
        }
        let body = try await S3XML.document(of: request, upTo: BatchDelete.maximumBodyBytes)
        let source = try await S3Authenticator.authenticate(
            request,
            app: app,
            key: nil,
            query: query,
            now: self.clock.unixSeconds,
            payload: body
        )
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            // S3 takes a batch only with a digest of it, and checks it.
            let missing = S3Error(
                status: .badRequest,
                code: "InvalidRequest",
                message: "Missing required header for this request: Content-MD5"
            )
            try await PayloadDigests.checkDocument(body, of: request, query: query, missing: missing)
            return try await self.batch.delete(try await DeleteRequest.read(body), app: app)
        }
    }

    private func answer(_ request: Request, context: AppRequestContext, head: Bool) async throws -> Response {
        let app = try await S3Authenticator.app(context, in: self.apps)
        let query = context.query(of: request)
        let source = try await S3Authenticator.authenticate(
            request,
            app: app,
            key: nil,
            query: query,
            now: self.clock.unixSeconds
        )
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            if head { return Self.headBucket(app) }
            // `S3OperationGate` refused every sub-resource not served here.
            let names = Set(query.decoded.map(\.name))
            if names.contains("location") { return Self.location(app) }
            if names.contains("notification") { return self.notifications.get(app) }
            if names.contains("uploads") { return try await self.multipart.listUploads(app, query: query) }
            return try await self.list(app, query: query, version2: query.first("list-type") == "2")
        }
    }

    private static func headBucket(_ app: MediaApp) -> Response {
        Response(status: .ok, headers: [HTTPField.Name("x-amz-bucket-region")!: app.sigV4Credentials.region])
    }

    /// The region, empty for `us-east-1`, as S3 answers it.
    private static func location(_ app: MediaApp) -> Response {
        var xml = S3XML()
        let region = app.sigV4Credentials.region
        xml.element("LocationConstraint", root: true) { $0.characters(region == "us-east-1" ? "" : region) }
        return xml.response()
    }

    private func list(_ app: MediaApp, query: QueryItems, version2: Bool) async throws -> Response {
        let prefix = query.first("prefix") ?? ""
        let delimiter = query.first("delimiter") ?? ""
        let encodeURL = query.first("encoding-type") == "url"
        if let type = query.first("encoding-type"), type != "url" {
            throw S3Error(
                status: .badRequest,
                code: "InvalidArgument",
                message: "Invalid Encoding Method specified in Request"
            )
        }
        var maxKeys = Self.maximumKeys
        if let text = query.first("max-keys") {
            guard let value = Int(text), value >= 0 else {
                throw S3Error(
                    status: .badRequest,
                    code: "InvalidArgument",
                    message: "Provided max-keys not an integer or within integer range"
                )
            }
            maxKeys = min(value, Self.maximumKeys)
        }
        let token = query.first("continuation-token")
        var after: String?
        if version2 {
            if let token {
                guard let decoded = Data(base64Encoded: token).flatMap({ String(data: $0, encoding: .utf8) }) else {
                    throw S3Error(
                        status: .badRequest,
                        code: "InvalidArgument",
                        message: "The continuation token provided is incorrect"
                    )
                }
                after = decoded
            } else {
                after = query.first("start-after")
            }
        } else {
            after = query.first("marker")
        }
        let appPrefix = app.id + "/"
        let page = try await ObjectListing.page(
            prefix: prefix,
            delimiter: delimiter,
            after: after,
            maxKeys: maxKeys,
            keys: { after, limit in
                try await self.store.keys(prefix: appPrefix + prefix, after: after.map { appPrefix + $0 }, limit: limit)
                    .map { String($0.rawValue.dropFirst(appPrefix.count)) }
            },
            metadata: { key in try await self.store.metadata(for: ObjectKey(appPrefix + key)) }
        )
        // What botocore decodes when it asked for `encoding-type=url` itself (`decode_list_object`,
        // `decode_list_object_v2`), S3 encodes: ListObjects (v1) leaves its `Prefix` as sent, and botocore hands
        // that element over as it reads it.
        let shown = { (text: String) in encodeURL ? PercentEncoding.formEncodedKey(text) : text }
        // ListObjects (v1) always names each object's owner; ListObjectsV2 only with `fetch-owner=true`.
        let owned = !version2 || query.first("fetch-owner")?.lowercased() == "true"
        var xml = S3XML()
        xml.element("ListBucketResult", root: true) { xml in
            xml.element("Name", app.id)
            xml.element("Prefix", version2 ? shown(prefix) : prefix)
            if version2 {
                if let token { xml.element("ContinuationToken", token) }
                if let start = query.first("start-after") { xml.element("StartAfter", shown(start)) }
                xml.element("KeyCount", String(page.entries.count + page.commonPrefixes.count))
            } else {
                xml.element("Marker", shown(after ?? ""))
                if page.isTruncated, !delimiter.isEmpty, let last = page.last { xml.element("NextMarker", shown(last)) }
            }
            xml.element("MaxKeys", String(maxKeys))
            if !delimiter.isEmpty { xml.element("Delimiter", shown(delimiter)) }
            if encodeURL { xml.element("EncodingType", "url") }
            xml.element("IsTruncated", page.isTruncated ? "true" : "false")
            if version2, page.isTruncated, let last = page.last {
                xml.element("NextContinuationToken", Data(last.utf8).base64EncodedString())
            }
            for entry in page.entries {
                xml.element("Contents") { xml in
                    xml.element("Key", shown(entry.key))
                    xml.element("LastModified", Self.timestamp(entry.metadata.created))
                    xml.element("ETag", entry.metadata.etag)
                    xml.element("Size", String(entry.metadata.size))
                    xml.element("StorageClass", "STANDARD")
                    if owned { xml.owner(app) }
                }
            }
            for common in page.commonPrefixes {
                xml.element("CommonPrefixes") { $0.element("Prefix", shown(common)) }
            }
        }
        return xml.response()
    }

    /// `2026-11-25T10:00:00.000Z`, as S3 writes a listing's times.
    static func timestamp(_ date: Date) -> String {
        String(AmzDate.iso8601(Int64(date.timeIntervalSince1970)).dropLast()) + ".000Z"
    }
}
