import Foundation
import HTTPTypes
import MockCDNCore

extension ObjectACL {
    /// The request headers that name an ACL: `x-amz-acl`, and a grant header per permission.
    static let cannedHeader = HTTPField.Name("x-amz-acl")!
    static let grantHeaders: [(name: HTTPField.Name, permission: Permission)] = [
        (HTTPField.Name("x-amz-grant-full-control")!, .fullControl),
        (HTTPField.Name("x-amz-grant-read")!, .read),
        (HTTPField.Name("x-amz-grant-read-acp")!, .readACP),
        (HTTPField.Name("x-amz-grant-write-acp")!, .writeACP),
        (HTTPField.Name("x-amz-grant-write")!, .write),
    ]

    /// The bounds of a PutObjectAcl document: S3 takes at most 100 grants; a few elements each.
    static let documentLimits = XMLReader.Limits(maximumBytes: 64 * 1024, maximumElements: 2_000)

    /// The ACL a write's headers name (PutObject, CopyObject, CreateMultipartUpload, PutObjectAcl).
    ///
    /// - Parameter headers: the request's headers.
    /// - Returns: nil when they name none.
    /// - Throws: 400 `InvalidArgument` for a canned ACL S3 does not have or a grant it cannot read,
    ///   `InvalidRequest` for a canned ACL with grant headers, `UnresolvableGrantByEmailAddress` for a grantee
    ///   named by e-mail address.
    static func requested(_ headers: HTTPFields) throws(S3Error) -> ObjectACL? {
        let canned = headers[values: Self.cannedHeader]
        let granted = Self.grantHeaders.contains { headers[$0.name] != nil }
        if !canned.isEmpty, granted { throw .cannedAndGrants }
        if let value = canned.last {
            return try Self.canned(value, name: Self.cannedHeader.canonicalName)
        }
        var grants: [Grant] = []
        for (name, permission) in Self.grantHeaders {
            for value in headers[values: name] {
                grants += try Self.grantees(value, header: name.canonicalName).map {
                    Grant(grantee: $0, permission: permission)
                }
            }
        }
        return grants.isEmpty ? nil : ObjectACL(kind: .grants(grants))
    }

    /// A canned ACL by name, as `x-amz-acl` or a POST form's `acl` field gives it.
    ///
    /// - Parameters:
    ///   - value: the name (compared as S3 does, exactly).
    ///   - name: the header or field, for the refusal.
    /// - Returns: the ACL.
    /// - Throws: 400 `InvalidArgument` naming the header and value for a name S3 does not have.
    static func canned(_ value: String, name: String) throws(S3Error) -> ObjectACL {
        guard let canned = Canned(rawValue: value.trimmingCharacters(in: .whitespaces)) else {
            throw .invalidACLArgument(name, value)
        }
        return ObjectACL(kind: .canned(canned))
    }

    /// The grantees of one grant header: `id="..."`, `uri="..."` or `emailAddress="..."`, comma-separated,
    /// the value quoted or not.
    private static func grantees(_ value: String, header: String) throws(S3Error) -> [Grantee] {
        var grantees: [Grantee] = []
        for item in value.split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else {
                throw .invalidACLArgument(header, value, message: "Argument format not recognized")
            }
            let type = pair[0].trimmingCharacters(in: .whitespaces)
            var text = pair[1].trimmingCharacters(in: .whitespaces)
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
                text = String(text.dropFirst().dropLast())
            }
            switch type.lowercased() {
            case "id":
                guard !text.isEmpty else { throw .invalidACLArgument(header, value, message: "Invalid id") }
                grantees.append(.user(id: text))
            case "uri":
                guard Grantee.groups.contains(text) else {
                    throw .invalidACLArgument(header, value, message: "Invalid group uri")
                }
                grantees.append(.group(uri: text))
            case "emailaddress":
                throw .unresolvableEmail(text)
            default:
                throw .invalidACLArgument(header, value, message: "Argument format not recognized")
            }
        }
        guard !grantees.isEmpty else {
            throw .invalidACLArgument(header, value, message: "Argument format not recognized")
        }
        return grantees
    }

    /// The ACL a PutObjectAcl document gives: its `Owner` must be the object's (the app's account), its grants
    /// each a `Grantee` by `ID` or `URI` and a `Permission`.
    ///
    /// - Parameters:
    ///   - policy: the `AccessControlPolicy` element.
    ///   - owner: the owner's canonical id (the app's account).
    /// - Returns: the explicit grants (an empty list when the document lists none: then no one but the owner,
    ///   who keeps full control whatever the ACL says, may do anything).
    /// - Throws: 400 `MalformedACLError` for a document without an owner or with a grant S3 cannot read,
    ///   403 `AccessDenied` for another owner, `UnresolvableGrantByEmailAddress` for an e-mail grantee,
    ///   `InvalidArgument` for a group S3 does not have.
    init(policy: XMLTree, owner: String) throws(S3Error) {
        guard let id = policy.child(named: "Owner")?.child(named: "ID")?.trimmedText, !id.isEmpty else {
            throw .malformedACL
        }
        guard id == owner else { throw .foreignOwner }
        var grants: [Grant] = []
        let lists = policy.children(named: "AccessControlList")
        guard lists.count <= 1 else { throw .malformedACL }
        for grant in lists.first?.children(named: "Grant") ?? [] {
            guard let grantee = grant.child(named: "Grantee"),
                let permission = grant.child(named: "Permission").flatMap({
                    Permission(rawValue: String($0.trimmedText))
                })
            else { throw .malformedACL }
            if let id = grantee.child(named: "ID")?.trimmedText, !id.isEmpty {
                grants.append(Grant(grantee: .user(id: String(id)), permission: permission))
            } else if let uri = grantee.child(named: "URI")?.trimmedText, !uri.isEmpty {
                guard Grantee.groups.contains(String(uri)) else {
                    throw .invalidACLArgument("uri", String(uri), message: "Invalid group uri")
                }
                grants.append(Grant(grantee: .group(uri: String(uri)), permission: permission))
            } else if let address = grantee.child(named: "EmailAddress")?.trimmedText, !address.isEmpty {
                throw .unresolvableEmail(String(address))
            } else {
                throw .malformedACL
            }
        }
        self.init(kind: .grants(grants))
    }
}
