extension SigV4 {
    /// Where the signatures of a signed aws-chunked body start (AWS, "Signature Calculations for the
    /// Authorization Header: Transferring Payload in Multiple Chunks"): each chunk's signature covers its data
    /// and the signature before it, the first chunk's the `Authorization` header's own (the seed), so a chunk can
    /// be neither changed, dropped nor moved. The trailer's signature continues the chain from the last chunk's.
    ///
    /// It holds the day's signing key, which its description and mirror leave out.
    public struct StreamingSeed: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// The `Authorization` header's signature, 64 lower-case hex digits: the first "previous signature".
        public let seedSignature: String
        /// The request's `x-amz-date` (`yyyyMMdd'T'HHmmss'Z'`), which every chunk's string to sign repeats.
        public let amzDate: String
        /// The credential scope, `yyyyMMdd/region/service/aws4_request`.
        public let scope: String
        private let signingKey: [UInt8]

        /// The seed of a request signed with `credentials` at `amzDate`, the signing key derived here.
        ///
        /// - Parameters:
        ///   - credentials: who signed.
        ///   - amzDate: the request's `x-amz-date`, `yyyyMMdd'T'HHmmss'Z'`.
        ///   - seedSignature: the `Authorization` header's signature, hex.
        public init(credentials: SigV4Credentials, amzDate: String, seedSignature: String) {
            let day = String(amzDate.prefix(8))
            self.init(
                signingKey: SigV4.signingKey(credentials, day: day),
                amzDate: amzDate,
                scope: SigV4.scope(credentials, day: day),
                seedSignature: seedSignature
            )
        }

        init(signingKey: [UInt8], amzDate: String, scope: String, seedSignature: String) {
            self.signingKey = signingKey
            self.amzDate = amzDate
            self.scope = scope
            self.seedSignature = seedSignature.lowercased()
        }

        /// The hex signature of a chunk: HMAC over `AWS4-HMAC-SHA256-PAYLOAD`, the date, the scope, the previous
        /// signature, the empty string's SHA-256 and the chunk data's SHA-256, one per line.
        ///
        /// - Parameters:
        ///   - previous: the signature before this chunk's, hex (the seed for the first chunk).
        ///   - dataHash: the SHA-256 of the chunk's data (of nothing for the final, empty chunk).
        /// - Returns: 64 lower-case hex digits.
        public func chunkSignature(previous: String, dataHash: [UInt8]) -> String {
            self.chunkSignatureBytes(previous: previous, dataHash: dataHash).hexString
        }

        /// The hex signature of the trailer: HMAC over `AWS4-HMAC-SHA256-TRAILER`, the date, the scope, the final
        /// chunk's signature and the SHA-256 of the canonical trailer (each field `name:value` and a line feed).
        ///
        /// - Parameters:
        ///   - previous: the final (empty) chunk's signature, hex.
        ///   - trailerHash: the SHA-256 of the canonical trailer fields.
        /// - Returns: 64 lower-case hex digits.
        public func trailerSignature(previous: String, trailerHash: [UInt8]) -> String {
            self.trailerSignatureBytes(previous: previous, trailerHash: trailerHash).hexString
        }

        func chunkSignatureBytes(previous: String, dataHash: [UInt8]) -> [UInt8] {
            self.sign(
                ["AWS4-HMAC-SHA256-PAYLOAD", previous, SigV4.emptyPayloadHash, dataHash.hexString]
            )
        }

        func trailerSignatureBytes(previous: String, trailerHash: [UInt8]) -> [UInt8] {
            self.sign(["AWS4-HMAC-SHA256-TRAILER", previous, trailerHash.hexString])
        }

        /// HMAC of the string to sign: the algorithm, the date and scope, then the rest, one per line.
        private func sign(_ parts: [String]) -> [UInt8] {
            let lines = [parts[0], self.amzDate, self.scope] + parts.dropFirst()
            return HMAC.sha256(lines.joined(separator: "\n"), key: self.signingKey)
        }

        /// Whether both seeds are of the same signature, date, scope and key (the keys compared in constant time).
        public static func == (lhs: StreamingSeed, rhs: StreamingSeed) -> Bool {
            lhs.seedSignature == rhs.seedSignature && lhs.amzDate == rhs.amzDate && lhs.scope == rhs.scope
                && SecureBytes.constantTimeEqual(lhs.signingKey, rhs.signingKey)
        }

        /// The date and scope; never the key, nor the seed signature.
        public var description: String { "StreamingSeed(amzDate: \(self.amzDate), scope: \(self.scope))" }

        /// The same as `description`.
        public var debugDescription: String { self.description }

        /// The date and scope only, so `dump` shows no key either.
        public var customMirror: Mirror {
            Mirror(self, children: ["amzDate": self.amzDate, "scope": self.scope], displayStyle: .struct)
        }
    }
}
