/// Signs URLs the way CloudFront (and botocore's CloudFrontSigner) does, with an RSA or ECDSA P-256 key.
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
    public func cannedURL(_ url: String, expires: Int64, hash: SignatureHash = .sha1) throws -> String {
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
    public func customURL(_ url: String, policy: CloudFrontPolicy, hash: SignatureHash = .sha1) throws -> String {
        let json = policy.json
        let signature = Base64.encode(try self.keyPair.key.signature(for: json, hash: hash), .cloudFront)
        return url + (url.contains("?") ? "&" : "?") + "Policy=\(Base64.encode(json, .cloudFront))"
            + self.tail(signature, hash)
    }

    /// The parameters of an image's original size on Stream's links: read by clients, no part of the answer.
    public static let originalSizeParameters: Set<String> = ["oh", "ow"]

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
        hash: SignatureHash = .sha1
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

    private func tail(_ signature: String, _ hash: SignatureHash) -> String {
        "&Signature=\(signature)&Key-Pair-Id=\(self.keyPair.id)" + (hash == .sha256 ? "&Hash-Algorithm=SHA256" : "")
    }
}
