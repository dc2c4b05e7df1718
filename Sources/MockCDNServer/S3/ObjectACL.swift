import Foundation
import MockCDNCore

/// An object's access control list as S3 keeps it: a canned ACL (`private`, `public-read`, ...) or explicit
/// grants, kept among the object's extras (`acl`) wherever the store keeps its metadata, so that it survives a
/// restart and is shared on an S3 bucket store. An object without the extra (one stored before MockCDN kept
/// ACLs, or by a Stream or CometChat upload) is `private`, as every S3 object is by default. The one rule it
/// decides beyond GetObjectAcl's answer is `allowsPublicRead`: a read without any credential.
struct ObjectACL: Equatable, Sendable {
    /// The extra that keeps it: the canned ACL's name, or `grants:` and the grants as JSON.
    static let extra = "acl"
    private static let grantsPrefix = "grants:"

    /// S3's canned ACLs for objects (botocore's `ObjectCannedACL`).
    enum Canned: String, CaseIterable, Sendable {
        case `private`
        case publicRead = "public-read"
        case publicReadWrite = "public-read-write"
        case authenticatedRead = "authenticated-read"
        case awsExecRead = "aws-exec-read"
        case bucketOwnerRead = "bucket-owner-read"
        case bucketOwnerFullControl = "bucket-owner-full-control"
    }

    /// What a grant allows, by S3's names.
    enum Permission: String, CaseIterable, Codable, Sendable {
        case fullControl = "FULL_CONTROL"
        case read = "READ"
        case write = "WRITE"
        case readACP = "READ_ACP"
        case writeACP = "WRITE_ACP"
    }

    /// Who a grant is for: a canonical user (by id) or one of S3's groups (by URI).
    enum Grantee: Equatable, Hashable, Codable, Sendable {
        case user(id: String)
        case group(uri: String)

        static let allUsers = Grantee.group(uri: "http://acs.amazonaws.com/groups/global/AllUsers")
        static let authenticatedUsers = Grantee.group(uri: "http://acs.amazonaws.com/groups/global/AuthenticatedUsers")
        static let logDelivery = Grantee.group(uri: "http://acs.amazonaws.com/groups/s3/LogDelivery")
        /// The group URIs S3 knows.
        static let groups: Set<String> = [
            "http://acs.amazonaws.com/groups/global/AllUsers",
            "http://acs.amazonaws.com/groups/global/AuthenticatedUsers",
            "http://acs.amazonaws.com/groups/s3/LogDelivery",
        ]
    }

    /// One grantee and what it may do.
    struct Grant: Equatable, Codable, Sendable {
        let grantee: Grantee
        let permission: Permission
    }

    /// A canned ACL, or explicit grants.
    enum Kind: Equatable, Sendable {
        case canned(Canned)
        case grants([Grant])
    }

    let kind: Kind

    /// S3's default: the owner alone, with full control.
    static let `private` = ObjectACL(kind: .canned(.private))

    init(kind: Kind) {
        self.kind = kind
    }

    /// The ACL `metadata` keeps.
    ///
    /// - Parameter metadata: a stored object.
    /// - Returns: its ACL; `private` for an object without one, or with one that cannot be read.
    init(of metadata: ObjectMetadata) {
        self = Self(extraValue: metadata.extras[Self.extra]) ?? .private
    }

    /// The ACL an extra's value names.
    ///
    /// - Parameter text: the value, nil for none.
    /// - Returns: nil for no value or one that names nothing.
    init?(extraValue text: String?) {
        guard let text else { return nil }
        if let canned = Canned(rawValue: text) {
            self.kind = .canned(canned)
        } else if text.hasPrefix(Self.grantsPrefix),
            let grants = try? JSONDecoder().decode(
                [Grant].self,
                from: Data(text.utf8.dropFirst(Self.grantsPrefix.count))
            )
        {
            self.kind = .grants(grants)
        } else {
            return nil
        }
    }

    /// The value of the extra.
    var extraValue: String {
        switch self.kind {
        case .canned(let canned):
            return canned.rawValue
        case .grants(let grants):
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let json = (try? encoder.encode(grants)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
            return Self.grantsPrefix + json
        }
    }

    /// The grants the ACL amounts to, as GetObjectAcl lists them: S3's documented expansion of a canned ACL
    /// (the owner always has `FULL_CONTROL`), or the explicit grants as given.
    ///
    /// The `bucket-owner-*` ACLs add the bucket owner's grant, and the app owns both the bucket and the object,
    /// so they leave the owner's alone, as S3 shows them when one account owns both. `aws-exec-read` adds
    /// EC2's read of AMI bundles, an AWS account MockCDN does not have: it is the owner's alone too.
    ///
    /// - Parameter owner: the owner's canonical id (the app's account).
    /// - Returns: the grants, in S3's order.
    func grants(owner: String) -> [Grant] {
        let full = Grant(grantee: .user(id: owner), permission: .fullControl)
        switch self.kind {
        case .grants(let grants):
            return grants
        case .canned(.private), .canned(.bucketOwnerRead), .canned(.bucketOwnerFullControl), .canned(.awsExecRead):
            return [full]
        case .canned(.publicRead):
            return [full, Grant(grantee: .allUsers, permission: .read)]
        case .canned(.publicReadWrite):
            return [full, Grant(grantee: .allUsers, permission: .read), Grant(grantee: .allUsers, permission: .write)]
        case .canned(.authenticatedRead):
            return [full, Grant(grantee: .authenticatedUsers, permission: .read)]
        }
    }

    /// Whether anyone may read the object without a credential: the `AllUsers` group has `READ` or
    /// `FULL_CONTROL` (`public-read`, `public-read-write`, or such a grant).
    var allowsPublicRead: Bool {
        self.grants(owner: "").contains {
            $0.grantee == .allUsers && ($0.permission == .read || $0.permission == .fullControl)
        }
    }
}
