import Foundation

/// Signs CloudFront URLs and cookies with a key the caller holds: RSA or ECDSA P-256, over SHA-1 or SHA-256.
///
/// This module is Foundation only, with no cryptography of its own, so the signature itself comes from a
/// closure: it gets the policy bytes and the hash, and returns what CloudFront expects for the key's kind
/// (RSASSA-PKCS1-v1_5 for RSA; a DER-encoded ECDSA signature for P-256). On Apple platforms CryptoKit's
/// `P256.Signing.PrivateKey` signs a digest (`signature(for: Insecure.SHA1.hash(data:))`, then
/// `derRepresentation`) and Security's `SecKeyCreateSignature` signs with either kind; in a Swift test,
/// MockCDNCore's `CloudFrontKey` does (`MockCDNTesting` brings it in). Everything else (the policy, CloudFront's
/// base64, the parameters and cookie names) is built here, byte for byte as MockCDN and botocore build it.
public struct CloudFrontURLSigner: Sendable {
    /// The hash under the signature; SHA-256 adds `Hash-Algorithm=SHA256` (or its cookie).
    public enum HashAlgorithm: String, Sendable, CaseIterable {
        /// SHA-1, CloudFront's default.
        case sha1 = "SHA1"
        /// SHA-256.
        case sha256 = "SHA256"
    }

    /// Makes a signature of `policy` over `hash` with the private key of ``keyPairID``.
    public typealias Sign = @Sendable (_ policy: Data, _ hash: HashAlgorithm) throws -> Data

    /// A custom policy: one resource (with `*` wildcards) and its conditions.
    public struct Policy: Sendable, Equatable {
        /// The URL or URL pattern the policy covers.
        public var resource: String
        /// The end of the policy (`DateLessThan`), to the second.
        public var expires: Date
        /// The start of the policy (`DateGreaterThan`), when set.
        public var notBefore: Date?
        /// The client address or IPv4 CIDR block the policy allows (`IpAddress`), when set.
        public var ipAddress: String?

        /// A policy for `resource` until `expires`.
        ///
        /// - Parameters:
        ///   - resource: the URL or pattern (`*` matches any run of characters).
        ///   - expires: when the policy ends.
        ///   - notBefore: when it starts; nil for now.
        ///   - ipAddress: an address or CIDR block; nil for any client.
        public init(resource: String, expires: Date, notBefore: Date? = nil, ipAddress: String? = nil) {
            self.resource = resource
            self.expires = expires
            self.notBefore = notBefore
            self.ipAddress = ipAddress
        }

        /// The policy as JSON without white space, with botocore's member order.
        public var json: String {
            var conditions = [#""DateLessThan":{"AWS:EpochTime":\#(CloudFrontURLSigner.epoch(self.expires))}"#]
            if let ipAddress {
                conditions.append(#""IpAddress":{"AWS:SourceIp":"\#(CloudFrontURLSigner.escaped(ipAddress))"}"#)
            }
            if let notBefore {
                conditions.append(#""DateGreaterThan":{"AWS:EpochTime":\#(CloudFrontURLSigner.epoch(notBefore))}"#)
            }
            let resource = CloudFrontURLSigner.escaped(self.resource)
            return #"{"Statement":[{"Resource":"\#(resource)","Condition":{\#(conditions.joined(separator: ","))}}]}"#
        }
    }

    /// The query parameters CloudFront signing adds; a URL to sign must not carry them already.
    public static let parameterNames: Set<String> = ["Expires", "Policy", "Signature", "Key-Pair-Id", "Hash-Algorithm"]

    /// The `Key-Pair-Id` links carry: the id of the public key in the key group.
    public let keyPairID: String
    /// The hash every signature of this signer uses.
    public let hashAlgorithm: HashAlgorithm
    private let sign: Sign

    /// A signer for key pair `keyPairID`, whose private key `sign` holds.
    ///
    /// - Parameters:
    ///   - keyPairID: the key pair id, e.g. `K2JCJMDEHXQW5F`.
    ///   - hashAlgorithm: SHA-1 (the default, as CloudFront's) or SHA-256.
    ///   - sign: makes the signature of the policy bytes it is given; RSA or DER-encoded ECDSA P-256.
    public init(keyPairID: String, hashAlgorithm: HashAlgorithm = .sha1, sign: @escaping Sign) {
        self.keyPairID = keyPairID
        self.hashAlgorithm = hashAlgorithm
        self.sign = sign
    }

    /// A canned-policy link: `url` plus `Expires`, `Signature` and `Key-Pair-Id`; it opens exactly `url`.
    ///
    /// - Parameters:
    ///   - url: the absolute http(s) URL to sign; any query it has is part of what is signed.
    ///   - expires: when the link stops working, to the second.
    /// - Returns: the signed URL.
    /// - Throws: ``MockCDNClientError/invalidURL`` for a URL that is not absolute http(s), has a fragment or
    ///   carries CloudFront parameters already; ``MockCDNClientError/signingFailed`` when `sign` throws.
    public func cannedURL(for url: URL, expires: Date) throws(MockCDNClientError) -> URL {
        let resource = try Self.checked(url)
        let seconds = Self.epoch(expires)
        let policy = Self.cannedJSON(resource: resource, expires: seconds)
        let signature = try self.signature(of: policy)
        return try Self.url(
            resource + (resource.contains("?") ? "&" : "?") + "Expires=\(seconds)" + self.tail(signature)
        )
    }

    /// A custom-policy link: `url` plus `Policy`, `Signature` and `Key-Pair-Id`; it opens every URL the policy
    /// covers, under its conditions.
    ///
    /// - Parameters:
    ///   - url: the absolute http(s) URL to request (the policy's resource may be a pattern covering it).
    ///   - policy: the policy.
    /// - Returns: the signed URL.
    /// - Throws: ``MockCDNClientError/invalidURL`` for a URL that is not absolute http(s), has a fragment or
    ///   carries CloudFront parameters already; ``MockCDNClientError/signingFailed`` when `sign` throws.
    public func customURL(for url: URL, policy: Policy) throws(MockCDNClientError) -> URL {
        let resource = try Self.checked(url)
        let json = policy.json
        let signature = try self.signature(of: json)
        let encoded = Self.cloudFrontBase64(Data(json.utf8))
        return try Self.url(
            resource + (resource.contains("?") ? "&" : "?") + "Policy=\(encoded)" + self.tail(signature)
        )
    }

    /// Signed cookies with a canned policy: they open exactly `url` until `expires`, under the path of its
    /// folder.
    ///
    /// - Parameters:
    ///   - url: the absolute http(s) URL the cookies open, without a query.
    ///   - expires: when they stop working, to the second.
    /// - Returns: `CloudFront-Expires`, `CloudFront-Signature`, `CloudFront-Key-Pair-Id` (and
    ///   `CloudFront-Hash-Algorithm` with SHA-256).
    /// - Throws: ``MockCDNClientError/invalidURL`` for a URL that is not absolute http(s), has a fragment or
    ///   carries CloudFront parameters; ``MockCDNClientError/signingFailed`` when `sign` throws.
    public func cannedCookies(for url: URL, expires: Date) throws(MockCDNClientError) -> CloudFrontCookies {
        let resource = try Self.checked(url)
        let seconds = Self.epoch(expires)
        let signature = try self.signature(of: Self.cannedJSON(resource: resource, expires: seconds))
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "/"
        return try self.cookies(["CloudFront-Expires": String(seconds)], signature, path: Self.folder(of: path))
    }

    /// Signed cookies with a custom policy: they open every URL the policy covers, under the path of the
    /// resource's folder (up to its last `/` before any `*`).
    ///
    /// - Parameter policy: the policy; its resource is an absolute http(s) URL or pattern.
    /// - Returns: `CloudFront-Policy`, `CloudFront-Signature`, `CloudFront-Key-Pair-Id` (and
    ///   `CloudFront-Hash-Algorithm` with SHA-256).
    /// - Throws: ``MockCDNClientError/invalidURL`` when the resource is not an absolute http(s) URL or
    ///   pattern; ``MockCDNClientError/signingFailed`` when `sign` throws.
    public func cookies(policy: Policy) throws(MockCDNClientError) -> CloudFrontCookies {
        let fixed = String(policy.resource.prefix { $0 != "*" })
        guard let components = URLComponents(string: fixed),
            ["http", "https"].contains(components.scheme?.lowercased()),
            components.host?.isEmpty == false
        else { throw .invalidURL("the policy's resource is not an absolute http(s) URL or pattern") }
        let json = policy.json
        let signature = try self.signature(of: json)
        return try self.cookies(
            ["CloudFront-Policy": Self.cloudFrontBase64(Data(json.utf8))],
            signature,
            path: Self.folder(of: components.percentEncodedPath)
        )
    }

    // MARK: - Helpers

    private func signature(of policy: String) throws(MockCDNClientError) -> String {
        do {
            return Self.cloudFrontBase64(try self.sign(Data(policy.utf8), self.hashAlgorithm))
        } catch {
            throw .signingFailed("the signing closure failed: \(type(of: error))")
        }
    }

    private func tail(_ signature: String) -> String {
        "&Signature=\(signature)&Key-Pair-Id=\(self.keyPairID)"
            + (self.hashAlgorithm == .sha256 ? "&Hash-Algorithm=SHA256" : "")
    }

    private func cookies(
        _ first: [String: String],
        _ signature: String,
        path: String
    ) throws(MockCDNClientError) -> CloudFrontCookies {
        var values = first
        values["CloudFront-Signature"] = signature
        values["CloudFront-Key-Pair-Id"] = self.keyPairID
        if self.hashAlgorithm == .sha256 { values["CloudFront-Hash-Algorithm"] = HashAlgorithm.sha256.rawValue }
        return try CloudFrontCookies(values: values, path: path)
    }

    /// The URL's text when it can be signed: absolute http(s), no fragment, no CloudFront parameter.
    private static func checked(_ url: URL) throws(MockCDNClientError) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            ["http", "https"].contains(components.scheme?.lowercased()), components.host?.isEmpty == false
        else { throw .invalidURL("\(url.absoluteString.prefix(200)) is not an absolute http(s) URL") }
        // A fragment is never sent, so the server could never see what was signed.
        guard components.fragment == nil else { throw .invalidURL("a URL to sign has no #fragment") }
        if let taken = components.queryItems?.first(where: { Self.parameterNames.contains($0.name) }) {
            throw .invalidURL("the URL carries CloudFront's \(taken.name) already")
        }
        return url.absoluteString
    }

    private static func url(_ text: String) throws(MockCDNClientError) -> URL {
        guard let url = URL(string: text) else { throw .invalidURL("the signed URL does not parse") }
        return url
    }

    /// The folder a cookie's `Path` names: the path up to and including its last `/`.
    private static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "/" }
        return String(path[...slash])
    }

    /// The canned policy a signature covers; CloudFront (and MockCDN) rebuild it from the URL and `Expires`.
    static func cannedJSON(resource: String, expires: Int64) -> String {
        #"{"Statement":[{"Resource":"\#(Self.escaped(resource))","Condition":{"DateLessThan":{"AWS:EpochTime":\#(expires)}}}]}"#
    }

    /// Unix seconds, rounded down as botocore's `int(timestamp)` does.
    static func epoch(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }

    /// CloudFront's base64: `+`, `=` and `/` become `-`, `_` and `~`.
    static func cloudFrontBase64(_ data: Data) -> String {
        String(
            data.base64EncodedString().map { character in
                switch character {
                case "+": "-"
                case "=": "_"
                case "/": "~"
                default: character
                }
            }
        )
    }

    /// JSON string escaping as Python's `json.dumps` (botocore) and MockCDN write it: `"` and `\`, and every
    /// character outside printable ASCII as `\uXXXX` UTF-16 units.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value > 0x7e:
                for unit in String(scalar).utf16 { escaped += String(format: "\\u%04x", unit) }
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
