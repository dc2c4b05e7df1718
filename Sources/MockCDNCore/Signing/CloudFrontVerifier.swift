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
        let hash: SignatureHash
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
            guard now < expires else { throw .expired(at: expires) }
            if let start = policy.dateGreaterThan, now < start { throw .notYetValid }
            guard policy.allows(address: clientAddress) else { throw .sourceIPMismatch }
            return Validity(notBefore: policy.dateGreaterThan, expiresAt: expires)
        } else {
            let valid = resources.contains { resource in
                let canned = CloudFrontPolicy.cannedJSON(resource: resource, expires: expiresText)
                return pair.key.isValidSignature(signature, for: canned, hash: hash)
            }
            guard valid else { throw .signatureMismatch }
            guard now < expires else { throw .expired(at: expires) }
            return Validity(expiresAt: expires)
        }
    }
}
