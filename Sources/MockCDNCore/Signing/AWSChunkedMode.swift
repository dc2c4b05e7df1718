/// How an S3 request body is framed in `aws-chunked`, as the signed `x-amz-content-sha256` names it (AWS,
/// "Authenticating Requests: Using the Authorization Header"). Only the modes MockCDN decodes are cases; an
/// unknown `STREAMING-` value is refused (`streaming(payloadHash:)`), never kept as text.
public enum AWSChunkedMode: String, Sendable, CaseIterable {
    /// `STREAMING-AWS4-HMAC-SHA256-PAYLOAD`: every chunk signed, in a chain seeded by the header's signature.
    case signed = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
    /// `STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER`: signed chunks, then trailer fields and their signature.
    case signedWithTrailer = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
    /// `STREAMING-UNSIGNED-PAYLOAD-TRAILER`: unsigned chunks, then trailer fields (a checksum); what boto3 and
    /// the AWS CLI send for an upload over HTTPS.
    case unsignedWithTrailer = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"

    /// The prefix of every streaming `x-amz-content-sha256` value, SigV4a's included.
    public static let streamingPrefix = "STREAMING-"

    /// The mode `payloadHash` names, or nil for any other value (a hex hash, `UNSIGNED-PAYLOAD`, SigV4a's modes,
    /// an unknown `STREAMING-` value).
    ///
    /// - Parameter payloadHash: the request's `x-amz-content-sha256`.
    public init?(payloadHash: String) {
        self.init(rawValue: payloadHash)
    }

    /// Whether `payloadHash` announces an aws-chunked body of any kind, one MockCDN decodes or not.
    ///
    /// - Parameter payloadHash: the request's `x-amz-content-sha256`.
    /// - Returns: true for every `STREAMING-` value.
    public static func isStreaming(_ payloadHash: String) -> Bool {
        payloadHash.hasPrefix(self.streamingPrefix)
    }

    /// The mode of a request's body: nil when `payloadHash` announces no aws-chunked body at all.
    ///
    /// - Parameter payloadHash: the request's `x-amz-content-sha256`.
    /// - Returns: the mode, or nil for a value without the `STREAMING-` prefix.
    /// - Throws: `AWSChunkedError.sigV4aNotImplemented` (501) for `STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD` and
    ///   its `-TRAILER` form; `AWSChunkedError.invalidPayloadHash` (400 `InvalidRequest`) for any other unknown
    ///   `STREAMING-` value.
    public static func streaming(payloadHash: String) throws(AWSChunkedError) -> AWSChunkedMode? {
        guard self.isStreaming(payloadHash) else { return nil }
        if let mode = AWSChunkedMode(payloadHash: payloadHash) { return mode }
        if payloadHash == "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD"
            || payloadHash == "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER"
        {
            throw .sigV4aNotImplemented
        }
        throw .invalidPayloadHash
    }

    /// The `x-amz-content-sha256` value of this mode.
    public var payloadHash: String { self.rawValue }

    /// Whether every chunk carries a `chunk-signature`.
    public var hasChunkSignatures: Bool { self != .unsignedWithTrailer }

    /// Whether trailer fields may follow the final chunk.
    public var hasTrailer: Bool { self != .signed }
}
