/// Signs URLs the way CloudFront (and botocore's CloudFrontSigner) does.
public struct CloudFrontSigner: Sendable {
    public let keyPair: CloudFrontKeyPair

    public init(keyPair: CloudFrontKeyPair) {
        self.keyPair = keyPair
    }

    /// A canned-policy link: `url` plus `Expires`, `Signature` and `Key-Pair-Id`.
    ///
    /// - Parameters:
    ///   - url: the resource URL; any query it has is part of what is signed.
    ///   - expires: the Unix time the link stops working.
    ///   - hash: SHA-1 (CloudFront's default) or SHA-256 (adds `Hash-Algorithm=SHA256`).
    /// - Returns: the signed URL.
    /// - Throws: `MockCDNError.invalidKeyMaterial` when the key pair holds no private key.
    public func cannedURL(_ url: String, expires: Int64, hash: RSAKey.Hash = .sha1) throws -> String {
        let policy = CloudFrontPolicy.cannedJSON(resource: url, expires: String(expires))
        let signature = Base64.encode(try self.keyPair.key.signature(for: policy, hash: hash), .cloudFront)
        return url + (url.contains("?") ? "&" : "?") + "Expires=\(expires)" + self.tail(signature, hash)
    }

    /// A custom-policy link: `url` plus `Policy`, `Signature` and `Key-Pair-Id`.
    ///
    /// - Parameters:
    ///   - url: the URL to request (the policy's resource may be a wildcard covering it).
    ///   - policy: the policy.
    ///   - hash: SHA-1 or SHA-256.
    /// - Returns: the signed URL.
    /// - Throws: `MockCDNError.invalidKeyMaterial` when the key pair holds no private key.
    public func customURL(_ url: String, policy: CloudFrontPolicy, hash: RSAKey.Hash = .sha1) throws -> String {
        let json = policy.json
        let signature = Base64.encode(try self.keyPair.key.signature(for: json, hash: hash), .cloudFront)
        return url + (url.contains("?") ? "&" : "?") + "Policy=\(Base64.encode(json, .cloudFront))"
            + self.tail(signature, hash)
    }

    /// A link in the shape Stream's CDN issues: `url?Key-Pair-Id&Policy&Signature`, then for an image
    /// `&oh=H&ow=W`, the original size. The custom policy's resource is the URL with wildcards (`url*`, or
    /// `url?*oh=H*ow=W*` for an image), so clients may append resize parameters anywhere; Stream's Android
    /// and React Native SDKs resize only links that carry `oh` and `ow`.
    ///
    /// - Parameters:
    ///   - url: the object's URL, without a query.
    ///   - expires: the Unix time the link stops working.
    ///   - originalSize: an image's width and height; nil for other files.
    /// - Returns: the signed URL.
    /// - Throws: `MockCDNError.invalidKeyMaterial` when the key pair holds no private key.
    public func streamURL(_ url: String, expires: Int64, originalSize: (width: Int, height: Int)?) throws -> String {
        let resource = originalSize.map { url + "?*oh=\($0.height)*ow=\($0.width)*" } ?? url + "*"
        let json = CloudFrontPolicy(resource: resource, dateLessThan: expires).json
        let signature = Base64.encode(try self.keyPair.key.signature(for: json, hash: .sha1), .cloudFront)
        let link =
            url + "?Key-Pair-Id=\(self.keyPair.id)&Policy=\(Base64.encode(json, .cloudFront))&Signature=\(signature)"
        return link + (originalSize.map { "&oh=\($0.height)&ow=\($0.width)" } ?? "")
    }

    /// Signed cookies: the name-value pairs a viewer sends to read every URL the policy covers (a custom
    /// policy: `CloudFront-Policy`, `CloudFront-Signature`, `CloudFront-Key-Pair-Id`) or one URL until a time
    /// (canned, `policy` nil: `CloudFront-Expires` in place of the policy); `CloudFront-Hash-Algorithm` with
    /// SHA-256.
    ///
    /// - Parameters:
    ///   - policy: a custom policy, or nil for a canned one.
    ///   - resource: the URL a canned policy covers (ignored with a custom policy).
    ///   - expires: when a canned policy ends (ignored with a custom policy).
    ///   - hash: SHA-1 or SHA-256.
    /// - Returns: the cookies, in the order CloudFront's documentation lists them.
    /// - Throws: `MockCDNError.invalidKeyMaterial` when the key pair holds no private key.
    public func cookies(
        policy: CloudFrontPolicy?,
        resource: String = "",
        expires: Int64 = 0,
        hash: RSAKey.Hash = .sha1
    ) throws -> [(name: String, value: String)] {
        let json = policy?.json ?? CloudFrontPolicy.cannedJSON(resource: resource, expires: String(expires))
        let signature = Base64.encode(try self.keyPair.key.signature(for: json, hash: hash), .cloudFront)
        let prefix = CloudFrontCredential.cookiePrefix
        var cookies = [
            policy == nil
                ? (prefix + "Expires", String(expires)) : (prefix + "Policy", Base64.encode(json, .cloudFront)),
            (prefix + "Signature", signature), (prefix + "Key-Pair-Id", self.keyPair.id),
        ]
        if hash == .sha256 { cookies.append((prefix + "Hash-Algorithm", "SHA256")) }
        return cookies.map { (name: $0.0, value: $0.1) }
    }

    private func tail(_ signature: String, _ hash: RSAKey.Hash) -> String {
        "&Signature=\(signature)&Key-Pair-Id=\(self.keyPair.id)" + (hash == .sha256 ? "&Hash-Algorithm=SHA256" : "")
    }
}

/// The CloudFront parameters of a request, as they appeared in its query.
public struct CloudFrontCredential: Sendable, Equatable {
    /// The query parameter names CloudFront signing adds; everything else belongs to the resource.
    public static let parameterNames: Set<String> = ["Expires", "Policy", "Signature", "Key-Pair-Id", "Hash-Algorithm"]

    public var expires: String?
    public var policy: String?
    public var signature: String
    public var keyPairID: String
    public var hashAlgorithm: String?

    /// Picks the CloudFront parameters out of a query; nil when the request carries no CloudFront
    /// credential at all (no `Signature` nor `Key-Pair-Id`).
    ///
    /// - Parameter query: percent-decoded query items, in order.
    /// - Returns: the credential, complete or not (an incomplete one fails verification with a reason).
    public init?(query: [(name: String, value: String)]) {
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        guard value("Signature") != nil || value("Key-Pair-Id") != nil else { return nil }
        self.expires = value("Expires")
        self.policy = value("Policy")
        self.signature = value("Signature") ?? ""
        self.keyPairID = value("Key-Pair-Id") ?? ""
        self.hashAlgorithm = value("Hash-Algorithm")
    }

    /// The cookie names of signed cookies: the query parameters' names after `CloudFront-`.
    public static let cookiePrefix = "CloudFront-"

    /// Picks signed cookies (`CloudFront-Expires` or `CloudFront-Policy`, `CloudFront-Signature`,
    /// `CloudFront-Key-Pair-Id`, and `CloudFront-Hash-Algorithm` for SHA-256) out of a request's cookies; nil
    /// when there is neither a `CloudFront-Signature` nor a `CloudFront-Key-Pair-Id` cookie.
    ///
    /// - Parameter cookie: the cookie value for a name, or nil.
    public init?(cookie: (String) -> String?) {
        self.init(
            query: ["Expires", "Policy", "Signature", "Key-Pair-Id", "Hash-Algorithm"].compactMap { name in
                cookie(Self.cookiePrefix + name).map { (name, $0) }
            }
        )
    }
}

/// Checks CloudFront-signed requests.
public enum CloudFrontVerifier {
    /// Verifies a canned or custom policy credential.
    ///
    /// - Parameters:
    ///   - credential: the request's CloudFront parameters.
    ///   - resources: the request URL without signing parameters, in each form it may have been signed as
    ///     (e.g. with and without image transform parameters, under the Host header and the public URL).
    ///   - now: the clock's Unix time.
    ///   - clientAddress: the client's IP address, for `IpAddress` conditions.
    ///   - keyPair: looks up a key pair of the app the request reads from.
    /// - Returns: when the link holds by the clock (its policy's dates, or the canned expiry).
    /// - Throws: `AccessDenied` naming the rule that failed.
    @discardableResult
    public static func verify(
        _ credential: CloudFrontCredential,
        resources: [String],
        now: Int64,
        clientAddress: String?,
        keyPair: (String) -> CloudFrontKeyPair?
    ) throws(AccessDenied) -> Validity {
        guard !credential.signature.isEmpty, !credential.keyPairID.isEmpty else { throw .missingKeyPair }
        let hash: RSAKey.Hash
        switch credential.hashAlgorithm {
        case nil, "SHA1": hash = .sha1
        case "SHA256": hash = .sha256
        default: throw AccessDenied("Unsupported Hash-Algorithm")
        }
        guard let pair = keyPair(credential.keyPairID) else { throw .unknownKeyPair }
        guard pair.verifies else { throw .retiredKeyPair }
        // Format first, so a malformed link is named as such rather than as a bad signature.
        let signed: [UInt8]
        let policy: CloudFrontPolicy?
        let expires: Int64
        var expiresText = ""
        if let encodedPolicy = credential.policy {
            guard encodedPolicy.utf8.count <= CloudFrontPolicy.maximumLength * 2,
                let policyBytes = Base64.decode(encodedPolicy, .cloudFront)
            else { throw .malformedPolicy }
            signed = policyBytes
            policy = try CloudFrontPolicy.parse(policyBytes)
            expires = policy?.dateLessThan ?? 0
        } else {
            guard let text = credential.expires, text.utf8.allSatisfy({ (48...57).contains($0) }),
                let value = Int64(text)
            else { throw AccessDenied("Canned-policy links need a numeric Expires") }
            // The policy is rebuilt from the text as sent: its bytes are what was signed.
            expiresText = text
            signed = []
            policy = nil
            expires = value
        }
        guard credential.signature.utf8.count <= 1024, let signature = Base64.decode(credential.signature, .cloudFront)
        else { throw .signatureMismatch }

        if let policy {
            guard pair.key.isValidSignature(signature, for: signed, hash: hash) else { throw .signatureMismatch }
            guard resources.contains(where: policy.covers) else { throw .resourceMismatch }
            guard now < expires else { throw .expired }
            if let start = policy.dateGreaterThan, now < start { throw .notYetValid }
            guard policy.allows(address: clientAddress) else { throw .sourceIPMismatch }
            return Validity(notBefore: policy.dateGreaterThan, expiresAt: expires)
        } else {
            let valid = resources.contains { resource in
                let canned = CloudFrontPolicy.cannedJSON(resource: resource, expires: expiresText)
                return pair.key.isValidSignature(signature, for: canned, hash: hash)
            }
            guard valid else { throw .signatureMismatch }
            guard now < expires else { throw .expired }
            return Validity(expiresAt: expires)
        }
    }
}
