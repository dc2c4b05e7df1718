import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore

/// The ACL and tags an object write names, checked before a byte of its body is stored: PutObject's,
/// CreateMultipartUpload's (kept for the object its completion makes) and CopyObject's headers, or a POST form's
/// `acl` and `tagging` fields. A write that names neither stores a `private` object without tags, as S3 does:
/// an overwrite does not inherit the old object's.
struct WriteAccess: Sendable {
    /// The ACL named; nil for S3's default, `private`.
    let acl: ObjectACL?
    /// The tags named; nil for none.
    let tags: ObjectTags?

    /// What a write's headers name (`x-amz-acl`, `x-amz-grant-*`, `x-amz-tagging`).
    ///
    /// - Parameter headers: the request's headers.
    /// - Throws: what `ObjectACL.requested(_:)` and `ObjectTags.requested(_:)` throw.
    init(_ headers: HTTPFields) throws(S3Error) {
        self.acl = try ObjectACL.requested(headers)
        self.tags = try ObjectTags.requested(headers)
    }

    init(acl: ObjectACL?, tags: ObjectTags?) {
        self.acl = acl
        self.tags = tags
    }

    /// What a POST form's fields before the file name: `acl` (a canned ACL) and `tagging` (a `Tagging` XML
    /// document), names matched without regard to case, as S3 reads a form.
    ///
    /// - Parameter fields: the fields, in order.
    /// - Returns: the ACL and tags.
    /// - Throws: 400 `InvalidArgument` for an unknown canned ACL; what `ObjectTags.read(_:)` throws.
    static func form(_ fields: [(name: String, value: String)]) async throws -> WriteAccess {
        var acl: ObjectACL? = nil
        if let value = FormUpload.value("acl", in: fields) { acl = try ObjectACL.canned(value, name: "acl") }
        var tags: ObjectTags? = nil
        if let tagging = FormUpload.value("tagging", in: fields) {
            tags = try await ObjectTags.read(ByteBuffer(string: tagging))
        }
        return WriteAccess(acl: acl, tags: tags)
    }

    /// The object's extras with the ACL and tags set as named, and taken off where not.
    ///
    /// - Parameter extras: the extras of the object to store.
    func apply(to extras: inout [String: String]) {
        extras[ObjectACL.extra] = self.acl?.extraValue
        extras[ObjectTags.extra] = self.tags?.extraValue
    }

    /// `extras` with the ACL and tags applied.
    func applied(to extras: [String: String]) -> [String: String] {
        var extras = extras
        self.apply(to: &extras)
        return extras
    }
}
