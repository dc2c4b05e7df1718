/// Why an S3 `aws-chunked` request body was refused, with the code, message, extra elements and status S3 answers
/// it with. The message never holds a signature, nor any of the body.
///
/// S3's choices, as observed against S3 itself and reported with the XML it answered:
/// - malformed framing (a bad chunk-size line, a missing CRLF, a missing or unreadable `chunk-signature`, a body
///   that ends early): 400 `IncompleteBody`, "The request body terminated unexpectedly" (versity/versitygw
///   issues #1685 for the signed modes, #1666 and #1660 for `STREAMING-UNSIGNED-PAYLOAD-TRAILER`);
/// - decoded data longer or shorter than `x-amz-decoded-content-length`: 400 `IncompleteBody`, "You did not
///   provide the number of bytes specified by the Content-Length HTTP header", with `NumberBytesExpected` and
///   `NumberBytesProvided` (versitygw #1684: 5 bytes sent for 3 declared);
/// - a chunk other than the last under 8 KiB: 403 `InvalidChunkSizeError` with `Chunk` and `BadChunkSize`
///   (aws/aws-sdk-cpp #2727 shows the 403; versitygw #1683, #1665, #2085 the elements);
/// - a trailer that is not `name:value` lines, or lacks what the mode needs: 400 `MalformedTrailerError`
///   (versitygw #1626, #1600, #1690);
/// - an `x-amz-content-sha256` that is no mode S3 knows: 400 `InvalidRequest` (versitygw #1601).
public struct AWSChunkedError: CategorizedError, Sendable, Equatable, CustomStringConvertible {
    /// The status S3 answers with: `malformed` 400, `forbidden` 403, `lengthRequired` 411, `notImplemented` 501.
    public enum Kind: Sendable, Equatable {
        /// 400.
        case malformed
        /// 403: a signature that does not match, or a chunk too small.
        case forbidden
        /// 411: no `x-amz-decoded-content-length`.
        case lengthRequired
        /// 501: a mode MockCDN does not verify (SigV4a).
        case notImplemented
    }

    /// S3's error code, e.g. `IncompleteBody`.
    public let code: String
    /// S3's message, or MockCDN's where S3's says too little.
    public let message: String
    /// Elements S3 adds after `Message`, e.g. `NumberBytesExpected`.
    public let details: [AccessDenied.Detail]
    /// Which status S3 answers with.
    public let kind: Kind

    /// An error with S3's code, message, extra elements and status kind.
    ///
    /// - Parameters:
    ///   - message: what S3 says.
    ///   - code: S3's code.
    ///   - details: elements after `Message`, in order.
    ///   - kind: which status S3 answers with.
    public init(_ message: String, code: String, details: [AccessDenied.Detail] = [], kind: Kind = .malformed) {
        self.message = message
        self.code = code
        self.details = details
        self.kind = kind
    }

    /// What kind of failure this is; there is no category for 411 or 501, so those take the nearest one (a bad
    /// request, something MockCDN cannot process) and S3's envelope answers `kind`'s status.
    public var category: ErrorCategory {
        switch self.kind {
        case .malformed, .lengthRequired: .invalidInput
        case .forbidden: .forbidden
        case .notImplemented: .unprocessable
        }
    }

    /// The message, safe to show: it never holds a signature or body bytes.
    public var publicMessage: String { self.message }

    /// The code and message.
    public var description: String { self.code + ": " + self.message }

    // MARK: - S3's refusals

    /// Framing S3 cannot read, or a body that ends before its final chunk and trailer.
    public static let incompleteBody = AWSChunkedError(
        "The request body terminated unexpectedly",
        code: "IncompleteBody"
    )

    /// Decoded data that does not add up to `x-amz-decoded-content-length`.
    ///
    /// - Parameters:
    ///   - expected: the declared length.
    ///   - provided: the length the chunks add up to (at least, when refused as soon as a chunk overruns it).
    /// - Returns: S3's 400 `IncompleteBody` naming both numbers.
    public static func decodedLengthMismatch(expected: Int64, provided: Int64) -> AWSChunkedError {
        AWSChunkedError(
            "You did not provide the number of bytes specified by the Content-Length HTTP header",
            code: "IncompleteBody",
            details: [.init("NumberBytesExpected", String(expected)), .init("NumberBytesProvided", String(provided))]
        )
    }

    /// A chunk under 8 KiB that was not the last. S3 finds it when the next chunk's size line arrives, and names
    /// that next chunk's number (1-based) with the small chunk's size: "hello" sent in chunks of 3, 2 and 0
    /// bytes is refused with `Chunk` 2 and `BadChunkSize` 3.
    ///
    /// - Parameters:
    ///   - chunk: the number of the chunk whose size line showed the previous one was not the last.
    ///   - size: the previous chunk's size.
    /// - Returns: S3's 403 `InvalidChunkSizeError`.
    public static func invalidChunkSize(chunk: Int, size: Int64) -> AWSChunkedError {
        AWSChunkedError(
            "Only the last chunk is allowed to have a size less than 8192 bytes",
            code: "InvalidChunkSizeError",
            details: [.init("Chunk", String(chunk)), .init("BadChunkSize", String(size))],
            kind: .forbidden
        )
    }

    /// A chunk or trailer signature that is not the one the chain computes.
    public static let signatureMismatch = AWSChunkedError(
        "The request signature we calculated does not match the signature you provided. Check your key and signing "
            + "method.",
        code: "SignatureDoesNotMatch",
        kind: .forbidden
    )

    /// A trailer that is not `name:value` lines ended by an empty line, or does not fit the mode: a field where
    /// none may be, a missing, repeated or misplaced `x-amz-trailer-signature`, a repeated field, or a trailer
    /// over `AWSChunkedDecoder.maximumTrailerLength`.
    public static let malformedTrailer = AWSChunkedError(
        "The request contained trailing data that was not well-formed or did not conform to our published schema.",
        code: "MalformedTrailerError"
    )

    /// An `x-amz-content-sha256` starting `STREAMING-` that names no mode S3 knows.
    public static let invalidPayloadHash = AWSChunkedError(
        "The value of x-amz-content-sha256 header is invalid.",
        code: "InvalidRequest"
    )

    /// A SigV4a (`STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD*`) body: S3 takes it, MockCDN does not verify ECDSA.
    public static let sigV4aNotImplemented = AWSChunkedError(
        "A header you provided implies functionality that is not implemented: MockCDN does not verify SigV4a "
            + "(ECDSA-P256) signed bodies; sign with AWS4-HMAC-SHA256 instead.",
        code: "NotImplemented",
        details: [.init("Header", "x-amz-content-sha256")],
        kind: .notImplemented
    )

    /// A signed aws-chunked body on a request without an `Authorization` header signature to seed its chain.
    public static let unseededSignedBody = AWSChunkedError(
        "A STREAMING-AWS4-HMAC-SHA256-PAYLOAD body needs a request signed in its Authorization header.",
        code: "InvalidRequest"
    )

    /// An aws-chunked body without `x-amz-decoded-content-length`.
    public static let missingDecodedLength = AWSChunkedError(
        "You must provide the Content-Length HTTP header.",
        code: "MissingContentLength",
        kind: .lengthRequired
    )

    /// An `x-amz-decoded-content-length` that is not a length in decimal digits.
    public static let invalidDecodedLength = AWSChunkedError(
        "x-amz-decoded-content-length must be the decoded body's length in bytes, in decimal digits.",
        code: "InvalidArgument"
    )
}
