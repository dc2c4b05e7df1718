import HTTPTypes

/// How S3 addresses each of its operations, and what MockCDN does with it: every operation of S3's API
/// model (botocore's `service-2.json`, 2006-03-01) and the browser's POST policy upload, by method, target
/// and sub-resource, either served or answered 501 `NotImplemented`. `S3OperationGate` reads it before any
/// route, so that a request for an operation MockCDN does not do is refused before anything is read or
/// written, never taken for the plain GET, PUT, POST or DELETE beside it; `docs/s3-api.md` lists the rows
/// not served (`notServedTable`), and a test holds the two together.
///
/// Operations that share a row are told apart by their route (a header such as `x-amz-copy-source`, a
/// query member such as `uploadId`), where MockCDN serves them. ListDirectoryBuckets is ListBuckets' request
/// but for the service its signature names (`s3express`).
struct S3Operation: Sendable {
    /// What a request addresses.
    enum Target: String, Sendable {
        /// `/`: the account's buckets.
        case service
        /// `/{bucket}`.
        case bucket
        /// `/{bucket}/{key}`.
        case object
        /// `POST /WriteGetObjectResponse`: S3 Object Lambda's answer route.
        case objectLambda
    }

    /// What MockCDN answers.
    enum Answer: Sendable {
        /// A route serves it, as S3 does (`docs/s3-api.md`'s table).
        case served
        /// 501 `NotImplemented`, before the body is read or the credential checked.
        case notImplemented
    }

    /// The operations S3 addresses this way, by their names in S3's API.
    let names: [String]
    let method: HTTPRequest.Method
    let target: Target
    /// The query parameter that names the sub-resource (`?acl`, `?list-type=2`), nil for none.
    let subresource: String?
    let answer: Answer
    /// The service a SigV4 signature of it names in its scope: `s3`, or `s3express` for the directory
    /// buckets' operations (S3 Express One Zone), which are otherwise addressed as S3's own.
    let service: String

    init(
        _ names: [String],
        _ method: HTTPRequest.Method,
        _ target: Target,
        _ subresource: String?,
        _ answer: Answer,
        service: String = "s3"
    ) {
        self.names = names
        self.method = method
        self.target = target
        self.subresource = subresource
        self.answer = answer
        self.service = service
    }

    /// Every row: S3's model, in the order of its targets and sub-resources, and PostObject.
    static let all: [S3Operation] = [
        S3Operation(["ListBuckets"], .get, .service, nil, .served),
        S3Operation(["ListDirectoryBuckets"], .get, .service, nil, .notImplemented, service: "s3express"),
        S3Operation(["ListObjects"], .get, .bucket, nil, .served),
        S3Operation(["PostObject"], .post, .bucket, nil, .served),
        S3Operation(["HeadBucket"], .head, .bucket, nil, .served),
        S3Operation(["CreateBucket"], .put, .bucket, nil, .served),
        S3Operation(["DeleteBucket"], .delete, .bucket, nil, .served),
        S3Operation(["GetBucketAbac"], .get, .bucket, "abac", .notImplemented),
        S3Operation(["PutBucketAbac"], .put, .bucket, "abac", .notImplemented),
        S3Operation(["GetBucketAccelerateConfiguration"], .get, .bucket, "accelerate", .notImplemented),
        S3Operation(["PutBucketAccelerateConfiguration"], .put, .bucket, "accelerate", .notImplemented),
        S3Operation(["GetBucketAcl"], .get, .bucket, "acl", .notImplemented),
        S3Operation(["PutBucketAcl"], .put, .bucket, "acl", .notImplemented),
        S3Operation(
            ["GetBucketAnalyticsConfiguration", "ListBucketAnalyticsConfigurations"],
            .get,
            .bucket,
            "analytics",
            .notImplemented
        ),
        S3Operation(["PutBucketAnalyticsConfiguration"], .put, .bucket, "analytics", .notImplemented),
        S3Operation(["DeleteBucketAnalyticsConfiguration"], .delete, .bucket, "analytics", .notImplemented),
        S3Operation(["GetBucketCors"], .get, .bucket, "cors", .notImplemented),
        S3Operation(["PutBucketCors"], .put, .bucket, "cors", .notImplemented),
        S3Operation(["DeleteBucketCors"], .delete, .bucket, "cors", .notImplemented),
        S3Operation(["DeleteObjects"], .post, .bucket, "delete", .served),
        S3Operation(["GetBucketEncryption"], .get, .bucket, "encryption", .notImplemented),
        S3Operation(["PutBucketEncryption"], .put, .bucket, "encryption", .notImplemented),
        S3Operation(["DeleteBucketEncryption"], .delete, .bucket, "encryption", .notImplemented),
        S3Operation(
            ["GetBucketIntelligentTieringConfiguration", "ListBucketIntelligentTieringConfigurations"],
            .get,
            .bucket,
            "intelligent-tiering",
            .notImplemented
        ),
        S3Operation(
            ["PutBucketIntelligentTieringConfiguration"],
            .put,
            .bucket,
            "intelligent-tiering",
            .notImplemented
        ),
        S3Operation(
            ["DeleteBucketIntelligentTieringConfiguration"],
            .delete,
            .bucket,
            "intelligent-tiering",
            .notImplemented
        ),
        S3Operation(
            ["GetBucketInventoryConfiguration", "ListBucketInventoryConfigurations"],
            .get,
            .bucket,
            "inventory",
            .notImplemented
        ),
        S3Operation(["PutBucketInventoryConfiguration"], .put, .bucket, "inventory", .notImplemented),
        S3Operation(["DeleteBucketInventoryConfiguration"], .delete, .bucket, "inventory", .notImplemented),
        S3Operation(
            ["GetBucketLifecycle", "GetBucketLifecycleConfiguration"],
            .get,
            .bucket,
            "lifecycle",
            .notImplemented
        ),
        S3Operation(
            ["PutBucketLifecycle", "PutBucketLifecycleConfiguration"],
            .put,
            .bucket,
            "lifecycle",
            .notImplemented
        ),
        S3Operation(["DeleteBucketLifecycle"], .delete, .bucket, "lifecycle", .notImplemented),
        S3Operation(["ListObjectsV2"], .get, .bucket, "list-type", .served),
        S3Operation(["GetBucketLocation"], .get, .bucket, "location", .served),
        S3Operation(["GetBucketLogging"], .get, .bucket, "logging", .notImplemented),
        S3Operation(["PutBucketLogging"], .put, .bucket, "logging", .notImplemented),
        S3Operation(["GetBucketMetadataConfiguration"], .get, .bucket, "metadataConfiguration", .notImplemented),
        S3Operation(["CreateBucketMetadataConfiguration"], .post, .bucket, "metadataConfiguration", .notImplemented),
        S3Operation(["DeleteBucketMetadataConfiguration"], .delete, .bucket, "metadataConfiguration", .notImplemented),
        S3Operation(
            ["UpdateBucketMetadataInventoryTableConfiguration"],
            .put,
            .bucket,
            "metadataInventoryTable",
            .notImplemented
        ),
        S3Operation(
            ["UpdateBucketMetadataJournalTableConfiguration"],
            .put,
            .bucket,
            "metadataJournalTable",
            .notImplemented
        ),
        S3Operation(["GetBucketMetadataTableConfiguration"], .get, .bucket, "metadataTable", .notImplemented),
        S3Operation(["CreateBucketMetadataTableConfiguration"], .post, .bucket, "metadataTable", .notImplemented),
        S3Operation(["DeleteBucketMetadataTableConfiguration"], .delete, .bucket, "metadataTable", .notImplemented),
        S3Operation(
            ["GetBucketMetricsConfiguration", "ListBucketMetricsConfigurations"],
            .get,
            .bucket,
            "metrics",
            .notImplemented
        ),
        S3Operation(["PutBucketMetricsConfiguration"], .put, .bucket, "metrics", .notImplemented),
        S3Operation(["DeleteBucketMetricsConfiguration"], .delete, .bucket, "metrics", .notImplemented),
        S3Operation(
            ["GetBucketNotification", "GetBucketNotificationConfiguration"],
            .get,
            .bucket,
            "notification",
            .served
        ),
        S3Operation(
            ["PutBucketNotification", "PutBucketNotificationConfiguration"],
            .put,
            .bucket,
            "notification",
            .served
        ),
        S3Operation(["GetObjectLockConfiguration"], .get, .bucket, "object-lock", .notImplemented),
        S3Operation(["PutObjectLockConfiguration"], .put, .bucket, "object-lock", .notImplemented),
        S3Operation(["GetBucketOwnershipControls"], .get, .bucket, "ownershipControls", .notImplemented),
        S3Operation(["PutBucketOwnershipControls"], .put, .bucket, "ownershipControls", .notImplemented),
        S3Operation(["DeleteBucketOwnershipControls"], .delete, .bucket, "ownershipControls", .notImplemented),
        S3Operation(["GetBucketPolicy"], .get, .bucket, "policy", .notImplemented),
        S3Operation(["PutBucketPolicy"], .put, .bucket, "policy", .notImplemented),
        S3Operation(["DeleteBucketPolicy"], .delete, .bucket, "policy", .notImplemented),
        S3Operation(["GetBucketPolicyStatus"], .get, .bucket, "policyStatus", .notImplemented),
        S3Operation(["GetPublicAccessBlock"], .get, .bucket, "publicAccessBlock", .notImplemented),
        S3Operation(["PutPublicAccessBlock"], .put, .bucket, "publicAccessBlock", .notImplemented),
        S3Operation(["DeletePublicAccessBlock"], .delete, .bucket, "publicAccessBlock", .notImplemented),
        S3Operation(["GetBucketReplication"], .get, .bucket, "replication", .notImplemented),
        S3Operation(["PutBucketReplication"], .put, .bucket, "replication", .notImplemented),
        S3Operation(["DeleteBucketReplication"], .delete, .bucket, "replication", .notImplemented),
        S3Operation(["GetBucketRequestPayment"], .get, .bucket, "requestPayment", .notImplemented),
        S3Operation(["PutBucketRequestPayment"], .put, .bucket, "requestPayment", .notImplemented),
        S3Operation(["CreateSession"], .get, .bucket, "session", .notImplemented),
        S3Operation(["GetBucketTagging"], .get, .bucket, "tagging", .notImplemented),
        S3Operation(["PutBucketTagging"], .put, .bucket, "tagging", .notImplemented),
        S3Operation(["DeleteBucketTagging"], .delete, .bucket, "tagging", .notImplemented),
        S3Operation(["ListMultipartUploads"], .get, .bucket, "uploads", .served),
        S3Operation(["GetBucketVersioning"], .get, .bucket, "versioning", .notImplemented),
        S3Operation(["PutBucketVersioning"], .put, .bucket, "versioning", .notImplemented),
        S3Operation(["ListObjectVersions"], .get, .bucket, "versions", .notImplemented),
        S3Operation(["GetBucketWebsite"], .get, .bucket, "website", .notImplemented),
        S3Operation(["PutBucketWebsite"], .put, .bucket, "website", .notImplemented),
        S3Operation(["DeleteBucketWebsite"], .delete, .bucket, "website", .notImplemented),
        S3Operation(["GetObject", "ListParts"], .get, .object, nil, .served),
        S3Operation(["HeadObject"], .head, .object, nil, .served),
        S3Operation(["CopyObject", "PutObject", "UploadPart", "UploadPartCopy"], .put, .object, nil, .served),
        S3Operation(["CompleteMultipartUpload"], .post, .object, nil, .served),
        S3Operation(["AbortMultipartUpload", "DeleteObject"], .delete, .object, nil, .served),
        S3Operation(["GetObjectAcl"], .get, .object, "acl", .served),
        S3Operation(["PutObjectAcl"], .put, .object, "acl", .served),
        S3Operation(["GetObjectAttributes"], .get, .object, "attributes", .notImplemented),
        S3Operation(["UpdateObjectEncryption"], .put, .object, "encryption", .notImplemented),
        S3Operation(["GetObjectLegalHold"], .get, .object, "legal-hold", .notImplemented),
        S3Operation(["PutObjectLegalHold"], .put, .object, "legal-hold", .notImplemented),
        S3Operation(["RenameObject"], .put, .object, "renameObject", .notImplemented),
        S3Operation(["RestoreObject"], .post, .object, "restore", .notImplemented),
        S3Operation(["GetObjectRetention"], .get, .object, "retention", .notImplemented),
        S3Operation(["PutObjectRetention"], .put, .object, "retention", .notImplemented),
        S3Operation(["SelectObjectContent"], .post, .object, "select", .notImplemented),
        S3Operation(["GetObjectTagging"], .get, .object, "tagging", .served),
        S3Operation(["PutObjectTagging"], .put, .object, "tagging", .served),
        S3Operation(["DeleteObjectTagging"], .delete, .object, "tagging", .served),
        S3Operation(["GetObjectTorrent"], .get, .object, "torrent", .notImplemented),
        S3Operation(["CreateMultipartUpload"], .post, .object, "uploads", .served),
        S3Operation(["WriteGetObjectResponse"], .post, .objectLambda, nil, .notImplemented),
    ]

    /// Every sub-resource S3 names an operation by; the query parameters that are never a plain read's or
    /// write's. `select-type` goes with `select`.
    static let subresources: Set<String> = Set(all.compactMap(\.subresource)).union(["select-type"])
}
