import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore

/// Buckets as test set-ups make and remove them: CreateBucket (`PUT /{bucket}`), DeleteBucket
/// (`DELETE /{bucket}`) and ListBuckets (`GET /` signed with S3's keys). An app of the configuration is a
/// bucket already; a key may create more at run time, each with its app's keys, region, upload policy and
/// link signing (`BucketRegistry`), kept where the store keeps its objects so that every instance on a shared
/// store sees them, and removed by a reset.
struct BucketLifecycle {
    let apps: AppRegistry
    let store: any ObjectStore
    let clock: MockClock
    /// The open multipart uploads and their parts: a deleted bucket's go with it.
    let parts: PartStore

    /// The most bytes of a `CreateBucketConfiguration` read.
    static let maximumConfigurationBytes = 64 << 10
    /// The most buckets one ListBuckets page lists, and the default (S3's).
    static let maximumBuckets = 10_000

    /// CreateBucket: 200 with `Location` for a new bucket, and for one the key already owns in `us-east-1`
    /// (S3's legacy answer there); 409 `BucketAlreadyOwnedByYou` for one it owns elsewhere,
    /// `BucketAlreadyExists` for another's; 400 `InvalidBucketName`, `IllegalLocationConstraintException`,
    /// `InvalidLocationConstraint`.
    func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let name = try context.parameters.require("app")
        let query = context.query(of: request)
        let body = try await S3XML.document(of: request, upTo: Self.maximumConfigurationBytes)
        let (owner, source) = try await S3Authenticator.account(
            request,
            apps: self.apps,
            query: query,
            now: self.clock.unixSeconds,
            payload: body
        )
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            let region = owner.sigV4Credentials.region
            if let existing = try await self.apps.app(refreshing: name) {
                guard existing.account === owner else { throw S3Error.bucketAlreadyExists(name) }
                guard region == "us-east-1" else { throw S3Error.bucketAlreadyOwnedByYou(name) }
                return Self.created(name)
            }
            if let problem = BucketName.problem(name) { throw S3Error.invalidBucketName(name, problem) }
            try Self.checkLocation(await Self.locationConstraint(in: body), region: region)
            switch try await self.apps.buckets.create(name, owner: owner, at: self.clock.now) {
            case .created: return Self.created(name)
            case .exists(let holder) where holder == owner.id:
                guard region == "us-east-1" else { throw S3Error.bucketAlreadyOwnedByYou(name) }
                return Self.created(name)
            case .exists: throw S3Error.bucketAlreadyExists(name)
            }
        }
    }

    /// DeleteBucket: 204 for an empty bucket created at run time (its open multipart uploads go with it);
    /// 409 `BucketNotEmpty`; 403 `AccessDenied` for an app of the configuration, which only the configuration
    /// removes.
    func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let app = try await S3Authenticator.app(context, in: self.apps)
        let source = try await S3Authenticator.authenticate(
            request,
            app: app,
            key: nil,
            query: context.query(of: request),
            now: self.clock.unixSeconds
        )
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            guard app.owner != nil else {
                throw S3Error(
                    status: .forbidden,
                    code: "AccessDenied",
                    message: "Access Denied: \(app.id) is an app of MockCDN's configuration, whose bucket is "
                        + "never deleted; remove the app from the configuration instead (only buckets made by "
                        + "CreateBucket are deleted)"
                )
            }
            guard try await self.store.keys(prefix: app.id + "/", after: nil, limit: 1).isEmpty else {
                throw S3Error(
                    status: .conflict,
                    code: "BucketNotEmpty",
                    message: "The bucket you tried to delete is not empty",
                    details: [("BucketName", app.id)]
                )
            }
            for upload in self.parts.uploads.uploads(of: app.id) {
                await self.parts.delete((try? self.parts.uploads.abort(upload.id, key: upload.key)) ?? [])
            }
            try await self.apps.buckets.delete(app.id)
            return Response(status: .noContent)
        }
    }

    /// ListBuckets: S3's `ListAllMyBucketsResult` with the buckets of the key's app (its own and those it
    /// created), by name, with `prefix`, `max-buckets` and `continuation-token`.
    func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = context.query(of: request)
        let (owner, source) = try await S3Authenticator.account(
            request,
            apps: self.apps,
            query: query,
            now: self.clock.unixSeconds
        )
        return try await CredentialNote.answer(authorisedBy: source, request: request, context: context) {
            if self.apps.buckets.isShared { try await self.apps.buckets.refresh { self.apps.configuredApp(id: $0) } }
            var limit = Self.maximumBuckets
            if let text = query.first("max-buckets") {
                guard let value = Int(text), (1...Self.maximumBuckets).contains(value) else {
                    throw S3Error(
                        status: .badRequest,
                        code: "InvalidArgument",
                        message: "max-buckets must be an integer from 1 to \(Self.maximumBuckets)",
                        details: [("ArgumentName", "max-buckets"), ("ArgumentValue", text)]
                    )
                }
                limit = value
            }
            var after: String?
            if let token = query.first("continuation-token") {
                guard let decoded = Data(base64Encoded: token).flatMap({ String(data: $0, encoding: .utf8) }) else {
                    throw S3Error(
                        status: .badRequest,
                        code: "InvalidArgument",
                        message: "The continuation token provided is incorrect",
                        details: [("ArgumentName", "continuation-token")]
                    )
                }
                after = decoded
            }
            let prefix = query.first("prefix") ?? ""
            let all = ([owner] + self.apps.buckets.buckets(of: owner))
                .filter { bucket in
                    bucket.id.hasBytePrefix(prefix) && (after.map { ObjectKey.listedBefore($0, bucket.id) } ?? true)
                }
                .sorted { ObjectKey.listedBefore($0.id, $1.id) }
            let page = all.prefix(limit)
            var xml = S3XML()
            xml.element("ListAllMyBucketsResult", root: true) { xml in
                xml.owner(owner)
                xml.element("Buckets") { xml in
                    for bucket in page {
                        xml.element("Bucket") { xml in
                            xml.element("Name", bucket.id)
                            xml.element("CreationDate", BucketController.timestamp(bucket.created))
                            xml.element("BucketRegion", bucket.sigV4Credentials.region)
                        }
                    }
                }
                if all.count > page.count, let last = page.last {
                    xml.element("ContinuationToken", Data(last.id.utf8).base64EncodedString())
                }
                if query.first("prefix") != nil { xml.element("Prefix", prefix) }
            }
            return xml.response()
        }
    }

    /// S3's answer to a bucket made: 200, `Location: /{bucket}`.
    private static func created(_ name: String) -> Response {
        Response(status: .ok, headers: [.location: "/" + name])
    }

    /// The `LocationConstraint` of a CreateBucket body: none for an empty body, else read from its
    /// `CreateBucketConfiguration` (400 `MalformedXML` for any other document).
    private static func locationConstraint(in body: ByteBuffer) async throws -> String? {
        guard body.readableBytes > 0 else { return nil }
        let limits = XMLReader.Limits(maximumBytes: Self.maximumConfigurationBytes, maximumElements: 64)
        let tree = try await S3XML.tree(of: body, root: "CreateBucketConfiguration", limits: limits)
        return tree.child(named: "LocationConstraint").map { String($0.trimmedText) }
    }

    /// A `CreateBucketConfiguration`'s `LocationConstraint` against the region the key's requests are signed
    /// for: none in `us-east-1`, that region elsewhere, as S3 checks it.
    private static func checkLocation(_ constraint: String?, region: String) throws {
        let constraint = constraint.flatMap { $0.isEmpty ? nil : $0 }
        if constraint == "us-east-1", region == "us-east-1" {
            throw S3Error(
                status: .badRequest,
                code: "InvalidLocationConstraint",
                message: "The specified location-constraint is not valid",
                details: [("LocationConstraint", "us-east-1")]
            )
        }
        guard constraint == (region == "us-east-1" ? nil : region) else {
            throw S3Error(
                status: .badRequest,
                code: "IllegalLocationConstraintException",
                message: "The \(constraint ?? "unspecified") location constraint is incompatible for the region "
                    + "specific endpoint this request was sent to (\(region))."
            )
        }
    }
}
