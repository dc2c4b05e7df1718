/// The contract behaviours a coverage report looks for: the one table that `GET /_mockcdn/report`,
/// `mockcdn report --list`, `docs/report.md` and the row ids of `openapi.yaml` all come from (a test fails when
/// the docs or the OpenAPI document differ from it).
///
/// Each row is recognised from what the journal records: method, path, query (for resize parameters and the
/// kind of CloudFront link), `credential`, `status`, `reason` (the refusal's code and message), `fault_kinds`,
/// and `clock` against `received_at`. Except for the fault rows, an answer a fault rule gave in place of the
/// route (`fault_kinds` holding `status`) counts for nothing.
public enum ContractBehaviours {
    /// Every row, grouped by surface in `ContractSurface` order.
    public static let all: [ContractBehaviour] = stream + cometChat + media + s3 + cloudFront + control

    /// The row ids, in table order.
    public static var ids: [String] { all.map(\.id) }

    // MARK: - Stream

    static let stream: [ContractBehaviour] = [
        .init("stream.upload.image", .stream, "Image upload", rule: "`POST` on a Stream `.../image` path, 201") {
            $0.isStream && $0.method == "POST" && $0.path.hasSuffix("/image") && $0.status == 201
        },
        .init("stream.upload.file", .stream, "File upload", rule: "`POST` on a Stream `.../file` path, 201") {
            $0.isStream && $0.method == "POST" && $0.path.hasSuffix("/file") && $0.status == 201
        },
        .init("stream.upload.delete", .stream, "Upload deleted", rule: "`DELETE` on a Stream upload path, 200") {
            $0.isStream && $0.method == "DELETE" && $0.status == 200
        },
        .init("stream.app.settings", .stream, "App settings read or changed", rule: "`GET` or `PATCH` `/app`, 2xx") {
            $0.isStream && $0.segments.last == "app" && (200..<300).contains($0.status)
        },
        .init("stream.channel.uploads", .stream, "Channel uploads listed", rule: "`GET .../uploads`, 200") {
            $0.isStream && $0.method == "GET" && $0.segments.last == "uploads" && $0.status == 200
        },
        .init("stream.credential.jwt", .stream, "JWT accepted", rule: "a Stream route, `credential` `jwt`, 2xx") {
            $0.isStream && $0.credential == .jwt && $0.succeeded
        },
        refusal("stream.refused.expired", .stream, "401 expired token (code 40)", 401, "token has expired") {
            $0.isStream
        },
        refusal("stream.refused.tampered", .stream, "401 token signature not valid", 401, "signature is not valid") {
            $0.isStream
        },
        refusal("stream.refused.wrong-app", .stream, "401 `api_key` of no app", 401, "api_key not valid") {
            $0.isStream
        },
        refusal("stream.refused.missing", .stream, "401 token or `api_key` missing", 401, "is missing") {
            $0.isStream
        },
        status("stream.status.403", .stream, "403 not allowed (code 17)", 403) { $0.isStream },
        status("stream.status.404", .stream, "404 upload not found (code 16)", 404) { $0.isStream },
        status("stream.status.413", .stream, "413 upload too large (code 22)", 413) { $0.isStream },
        status("stream.status.507", .stream, "507 store full", 507) { $0.isStream },
    ]

    // MARK: - CometChat

    static let cometChat: [ContractBehaviour] = [
        .init(
            "cometchat.credential.fat-header",
            .cometchat,
            "FAT in the `fat` header accepted",
            rule: "`credential` `fat-header`, 2xx or 304"
        ) { $0.credential == .fatHeader && $0.succeeded },
        .init(
            "cometchat.credential.fat-query",
            .cometchat,
            "FAT in the `fat` query parameter accepted",
            rule: "`credential` `fat-query`, 2xx or 304"
        ) { $0.credential == .fatQuery && $0.succeeded },
        .init("cometchat.fat.mint", .cometchat, "FAT minted", rule: "`POST /v1/apps/{app}/fat`, 200") {
            $0.method == "POST" && $0.segments.first == "v1" && $0.segments.last == "fat" && $0.status == 200
        },
        .init("cometchat.media.upload", .cometchat, "Media upload", rule: "`POST /{app}/media`, 201") {
            $0.isCometChat && $0.method == "POST" && $0.segments.last == "media" && $0.status == 201
        },
        .init("cometchat.presign", .cometchat, "Media URL presigned", rule: "`POST /v1/apps/{app}/presign`, 200") {
            $0.method == "POST" && $0.segments.first == "v1" && $0.segments.last == "presign" && $0.status == 200
        },
        .init("cometchat.upload-urls", .cometchat, "Upload URLs issued", rule: "`POST /v1/apps/{app}/uploads`, 200") {
            $0.method == "POST" && $0.segments.first == "v1" && $0.segments.last == "uploads" && $0.status == 200
        },
        .init(
            "cometchat.presigned-put",
            .cometchat,
            "Presigned PUT stored",
            rule: "`PUT /{app}/{key}` with `credential` `presigned` or `presigned-v2`, 200"
        ) {
            $0.isCometChat && $0.method == "PUT" && $0.status == 200
        },
        refusal("cometchat.refused.expired", .cometchat, "401 expired FAT or JWT", 401, "expired") { $0.isCometChat },
        refusal("cometchat.refused.tampered", .cometchat, "401 FAT or JWT signature does not match", 401, "signature") {
            $0.isCometChat
        },
        refusal("cometchat.refused.wrong-app", .cometchat, "401 FAT of another app", 401, "belongs to another app") {
            $0.isCometChat
        },
        refusal("cometchat.refused.missing", .cometchat, "401 no FAT or JWT", 401, "is required") { $0.isCometChat },
        status("cometchat.status.403", .cometchat, "403 not allowed or presigned URL refused", 403) { $0.isCometChat },
        status("cometchat.status.404", .cometchat, "404 app or object not found", 404) { $0.isCometChat },
        status("cometchat.status.413", .cometchat, "413 file too large", 413) { $0.isCometChat },
        status("cometchat.status.507", .cometchat, "507 store full", 507) { $0.isCometChat },
    ]

    // MARK: - CDN reads and media

    static let media: [ContractBehaviour] = [
        status("media.status.200", .media, "200 full object", 200) { $0.isMediaRead },
        status("media.status.206", .media, "206 one byte range", 206) { $0.isMediaRead },
        status("media.status.304", .media, "304 not modified", 304) { $0.isMediaRead },
        status("media.status.416", .media, "416 range not satisfiable", 416) { $0.isMediaRead },
        refusal("media.refused.missing", .media, "401 no credential", 401, "") { $0.isMediaRead },
        refusal("media.refused.expired", .media, "403 expired link or FAT", 403, "expired") { $0.isMediaRead },
        refusal("media.refused.tampered", .media, "403 signature does not match", 403, "does not match") {
            $0.isMediaRead
        },
        .init(
            "media.refused.wrong-app",
            .media,
            "403 credential of another app",
            rule: "a read, 403, `reason` has `belongs to another app` or `InvalidAccessKeyId`"
        ) {
            $0.isMediaRead && $0.routeRan && $0.status == 403
                && ($0.reasonHas("belongs to another app") || $0.reasonHas("InvalidAccessKeyId"))
        },
        status("media.status.404", .media, "404 no such key", 404) { $0.isMediaRead },
        resize("clip"),
        resize("crop"),
        resize("scale"),
        resize("fill"),
        refusal("media.resize.too-large", .media, "422 source above the 16.8 MP resize limit", 422, "ImageTooLarge") {
            $0.isMediaRead
        },
        .init("media.poster.read", .media, "Video poster read", rule: "a read of `/{app}/thumbnails/...`, 200 or 206") {
            $0.isMediaRead && $0.routeRan && $0.segments[1] == "thumbnails" && ($0.status == 200 || $0.status == 206)
        },
    ]

    // MARK: - S3

    static let s3: [ContractBehaviour] = [
        credential("s3.credential.presigned-v4", .s3, "SigV4 presigned query accepted", .presigned),
        credential("s3.credential.presigned-v2", .s3, "SigV2 presigned query accepted", .presignedV2),
        credential("s3.credential.header-sigv4", .s3, "SigV4 `Authorization` header accepted", .headerSigV4),
        credential("s3.credential.header-sigv2", .s3, "SigV2 `Authorization` header accepted", .headerSigV2),
        credential("s3.credential.post-policy", .s3, "POST policy form accepted", .postPolicy),
        refusal("s3.refused.expired", .s3, "403 request has expired", 403, "expired") { $0.isS3 },
        refusal("s3.refused.tampered", .s3, "403 SignatureDoesNotMatch", 403, "SignatureDoesNotMatch") { $0.isS3 },
        refusal("s3.refused.too-large", .s3, "400 EntityTooLarge", 400, "EntityTooLarge") { $0.isS3 },
        status("s3.status.403", .s3, "403 access denied", 403) { $0.isS3 },
        status("s3.status.404", .s3, "404 no such bucket, key or upload", 404) { $0.isS3 },
        status("s3.status.415", .s3, "415 type or extension the app refuses", 415) { $0.isS3 },
        status("s3.status.507", .s3, "507 store full", 507) { $0.isS3 },
        .init("s3.bucket.create", .s3, "Bucket created (CreateBucket)", rule: "`PUT /{bucket}` without a query, 200") {
            $0.isS3 && $0.method == "PUT" && $0.segments.count == 1 && $0.query.isEmpty && $0.status == 200
        },
        .init("s3.bucket.delete", .s3, "Bucket deleted (DeleteBucket)", rule: "`DELETE /{bucket}` without a query, 204")
        {
            $0.isS3 && $0.method == "DELETE" && $0.segments.count == 1 && $0.query.isEmpty && $0.status == 204
        },
        .init("s3.bucket.head", .s3, "Bucket found (HeadBucket)", rule: "`HEAD /{bucket}`, 200") {
            $0.isS3 && $0.method == "HEAD" && $0.segments.count == 1 && $0.status == 200
        },
        .init("s3.buckets.list", .s3, "Buckets listed (ListBuckets)", rule: "`GET /` with an S3 credential, 200") {
            $0.method == "GET" && $0.segments.isEmpty && $0.status == 200 && $0.credential.addressesAnyKey
        },
        subresource("s3.object.acl.put", "Object ACL set (PutObjectAcl)", "PUT", "acl", 200),
        subresource("s3.object.acl.get", "Object ACL read (GetObjectAcl)", "GET", "acl", 200),
        subresource("s3.object.tagging.put", "Object tags set (PutObjectTagging)", "PUT", "tagging", 200),
        subresource("s3.object.tagging.get", "Object tags read (GetObjectTagging)", "GET", "tagging", 200),
        subresource("s3.object.tagging.delete", "Object tags removed (DeleteObjectTagging)", "DELETE", "tagging", 204),
        .init(
            "s3.object.public-read",
            .s3,
            "Object read without a credential, its ACL public",
            rule: "a read with `credential` `none`, 200 or 206"
        ) {
            $0.isMediaRead && $0.routeRan && $0.credential == CredentialSource.none && [200, 206].contains($0.status)
        },
        refusal("s3.refused.invalid-tag", .s3, "400 InvalidTag", 400, "InvalidTag") { $0.isS3 },
    ]

    // MARK: - CloudFront

    static let cloudFront: [ContractBehaviour] = [
        .init(
            "cloudfront.canned",
            .cloudfront,
            "Canned-policy link accepted",
            rule: "`credential` `cloudfront`, query has `Expires` and no `Policy`, 2xx or 304"
        ) {
            $0.credential == .cloudfront && $0.hasQuery("expires") && !$0.hasQuery("policy") && $0.succeeded
        },
        .init(
            "cloudfront.custom",
            .cloudfront,
            "Custom-policy link accepted",
            rule: "`credential` `cloudfront`, query has `Policy`, 2xx or 304"
        ) {
            $0.credential == .cloudfront && $0.hasQuery("policy") && $0.succeeded
        },
        .init(
            "cloudfront.cookies",
            .cloudfront,
            "Signed cookies accepted",
            rule: "`credential` `cloudfront-cookie`, 2xx or 304"
        ) { $0.credential == .cloudfrontCookie && $0.succeeded },
        .init(
            "cloudfront.refused.expired",
            .cloudfront,
            "403 expired CloudFront link",
            rule: "a read whose query has `Key-Pair-Id`, 403, `reason` has `expired`"
        ) {
            $0.isMediaRead && $0.routeRan && $0.hasQuery("key-pair-id") && $0.status == 403 && $0.reasonHas("expired")
        },
    ]

    // MARK: - Test control

    static let control: [ContractBehaviour] =
        ["delay", "status", "throttle", "truncate", "reset"].map { kind in
            ContractBehaviour(
                "control.fault.\(kind)",
                .control,
                "Fault `\(kind)` met",
                rule: "`fault_kinds` has `\(kind)`"
            ) { $0.faultKinds.contains(kind) }
        } + [
            .init(
                "control.clock.past-expiry",
                .control,
                "Refused as expired after the clock was moved ahead",
                rule: "401 or 403, `reason` has `expired`, `clock` more than 1 s ahead of `received_at`"
            ) {
                $0.routeRan && $0.refusedAsExpired && Double($0.clock) > $0.receivedAt + 1
            }
        ]

    // MARK: - Row shapes

    /// A row for an answer with a status on a surface (the route ran).
    private static func status(
        _ id: String,
        _ surface: ContractSurface,
        _ title: String,
        _ code: Int,
        where surfaceTest: @escaping @Sendable (JournalRecord) -> Bool
    ) -> ContractBehaviour {
        .init(id, surface, title, rule: "\(surface.title) route, status \(code)") {
            surfaceTest($0) && $0.routeRan && $0.status == code
        }
    }

    /// A row for a refusal with a status whose `reason` contains some words (any reason when `words` is empty).
    private static func refusal(
        _ id: String,
        _ surface: ContractSurface,
        _ title: String,
        _ code: Int,
        _ words: String,
        where surfaceTest: @escaping @Sendable (JournalRecord) -> Bool
    ) -> ContractBehaviour {
        let rule = "\(surface.title) route, \(code)" + (words.isEmpty ? "" : ", `reason` has `\(words)`")
        return .init(id, surface, title, rule: rule) {
            surfaceTest($0) && $0.routeRan && $0.status == code && (words.isEmpty || $0.reasonHas(words))
        }
    }

    /// A row for an S3 operation on an object's sub-resource (`?acl`, `?tagging`) that succeeded.
    private static func subresource(
        _ id: String,
        _ title: String,
        _ method: String,
        _ parameter: String,
        _ code: Int
    ) -> ContractBehaviour {
        .init(id, .s3, title, rule: "`\(method) /{bucket}/{key}?\(parameter)`, \(code)") {
            $0.isS3 && $0.method == method && $0.segments.count >= 2 && $0.hasQuery(parameter) && $0.status == code
        }
    }

    /// A row for a read of a resized variant in one mode.
    private static func resize(_ mode: String) -> ContractBehaviour {
        .init(
            "media.resize.\(mode)",
            .media,
            "Resize `\(mode)`",
            rule: "a read with `w` or `h`, `resize=\(mode)`" + (mode == "clip" ? " or none" : "") + ", 200, 206 or 304"
        ) {
            $0.isMediaRead && $0.routeRan && [200, 206, 304].contains($0.status) && $0.resizeMode == mode
        }
    }

    /// A row for a credential kind that authorised a request.
    private static func credential(
        _ id: String,
        _ surface: ContractSurface,
        _ title: String,
        _ source: CredentialSource
    ) -> ContractBehaviour {
        .init(id, surface, title, rule: "`credential` `\(source.rawValue)`, 2xx or 304") {
            $0.credential == source && $0.succeeded
        }
    }
}
