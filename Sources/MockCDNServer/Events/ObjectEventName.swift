/// The S3 event names MockCDN emits, as AWS writes them in a record's `eventName` (no `s3:` prefix; a
/// notification configuration's filter names them with it: `s3:ObjectCreated:*`).
enum ObjectEventName: String, Sendable, CaseIterable, Codable {
    /// PutObject, a presigned PUT, a Stream or CometChat upload.
    case put = "ObjectCreated:Put"
    /// A POST policy upload (PostObject).
    case post = "ObjectCreated:Post"
    /// CopyObject.
    case copy = "ObjectCreated:Copy"
    /// CompleteMultipartUpload.
    case completeMultipartUpload = "ObjectCreated:CompleteMultipartUpload"
    /// DeleteObject, DeleteObjects, a Stream or CometChat delete, a reset.
    case delete = "ObjectRemoved:Delete"
    /// PutObjectTagging: the object's tags replaced; no new object.
    case taggingPut = "ObjectTagging:Put"
    /// DeleteObjectTagging.
    case taggingDelete = "ObjectTagging:Delete"
    /// PutObjectAcl: the object's ACL replaced; no new object.
    case aclPut = "ObjectAcl:Put"
}
