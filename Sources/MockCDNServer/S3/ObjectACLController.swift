import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore

/// PutObjectAcl and GetObjectAcl (`PUT|GET /{app}/{key}?acl`): an object's ACL set by a canned ACL or grant
/// headers, or by an `AccessControlPolicy` document, and read back as S3 writes it, the app's account owning
/// the object (`S3XML.owner`'s id). A change of ACL is no write of the object: its bytes, ETag and
/// Last-Modified stay, no `ObjectCreated` event is emitted, only S3's `ObjectAcl:Put`.
struct ObjectACLController {
    let apps: AppRegistry
    let store: any ObjectStore
    /// Where a change's event is emitted.
    let events: ObjectEvents
    let clock: MockClock

    /// The XML Schema instance namespace, in which a `Grantee` names its type.
    static let schemaInstance = "http://www.w3.org/2001/XMLSchema-instance"

    /// PutObjectAcl: 200 with no body once the ACL is kept.
    ///
    /// - Parameters:
    ///   - request: the `PUT ?acl`.
    ///   - context: its context.
    /// - Returns: the answer.
    /// - Throws: 404 `NoSuchKey`; 400 `BadDigest` for a claimed checksum the document does not have;
    ///   400 `MissingSecurityHeader` when no ACL is named, `UnexpectedContent` for headers and a document
    ///   together, `MalformedACLError` for a document S3 cannot read; what
    ///   `ObjectACL.requested(_:)` and `ObjectACL.init(policy:owner:)` throw. Nothing changes on a refusal.
    func put(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await S3XML.document(of: request, upTo: ObjectACL.documentLimits.maximumBytes)
        let authenticated = try await S3Authenticator.object(
            request,
            context: context,
            apps: self.apps,
            now: self.clock.unixSeconds,
            payload: body
        )
        let (app, key) = (authenticated.app, authenticated.key)
        return try await CredentialNote.answer(authorisedBy: authenticated.source, request: request, context: context) {
            try await PayloadDigests.checkDocument(body, of: request, query: authenticated.query)
            let named = try ObjectACL.requested(request.headers)
            let acl: ObjectACL
            if body.readableBytes > 0 {
                guard named == nil else { throw S3Error.aclHeadersAndBody }
                let policy: XMLTree
                do {
                    policy = try await S3XML.tree(
                        of: body,
                        root: "AccessControlPolicy",
                        limits: ObjectACL.documentLimits
                    )
                } catch let refusal as S3Error where refusal.code == S3Error.malformedXML.code {
                    throw S3Error.malformedACL
                }
                acl = try ObjectACL(policy: policy, owner: app.account.id)
            } else {
                guard let named else { throw S3Error.missingACL }
                acl = named
            }
            try await self.store.changeSubresource(of: key, as: .aclPut, emittingTo: self.events) {
                $0.extras[ObjectACL.extra] = acl.extraValue
            }
            return Response(status: .ok)
        }
    }

    /// GetObjectAcl: the object's `AccessControlPolicy`, its canned ACL expanded as S3 documents it.
    ///
    /// - Parameters:
    ///   - request: the `GET ?acl` (or HEAD: the same answer without a body).
    ///   - context: its context.
    /// - Returns: the document.
    /// - Throws: 404 `NoSuchKey`, and what the credential's check throws.
    func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let authenticated = try await S3Authenticator.object(
            request,
            context: context,
            apps: self.apps,
            now: self.clock.unixSeconds
        )
        let (app, key) = (authenticated.app, authenticated.key)
        return try await CredentialNote.answer(authorisedBy: authenticated.source, request: request, context: context) {
            guard let object = try await self.store.metadata(for: key) else { throw S3Error.noSuchKey() }
            let owner = app.account.id
            var xml = S3XML()
            xml.element("AccessControlPolicy", root: true) { xml in
                xml.owner(app)
                xml.element("AccessControlList") { xml in
                    for grant in ObjectACL(of: object).grants(owner: owner) {
                        xml.element("Grant") { xml in
                            Self.grantee(grant.grantee, owner: owner, into: &xml)
                            xml.element("Permission", grant.permission.rawValue)
                        }
                    }
                }
            }
            return xml.response(head: request.method == .head)
        }
    }

    /// A `Grantee` as S3 writes it: a canonical user by `ID` (with the display name S3 gives the owner), or a
    /// group by `URI`.
    private static func grantee(_ grantee: ObjectACL.Grantee, owner: String, into xml: inout S3XML) {
        switch grantee {
        case .user(let id):
            xml.element("Grantee", attributes: [("xmlns:xsi", Self.schemaInstance), ("xsi:type", "CanonicalUser")]) {
                xml in
                xml.element("ID", id)
                if id == owner { xml.element("DisplayName", owner) }
            }
        case .group(let uri):
            xml.element("Grantee", attributes: [("xmlns:xsi", Self.schemaInstance), ("xsi:type", "Group")]) { xml in
                xml.element("URI", uri)
            }
        }
    }
}
