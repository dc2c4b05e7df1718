/// Why S3 refuses the checksum a client sent with a body, in S3's own code and words: a value that is no
/// checksum at all (not base64, or the wrong length), or one the body does not hash to. Every case is a 400.
public struct ChecksumError: CategorizedError, Sendable, Equatable, CustomStringConvertible {
    private enum Reason: Sendable, Equatable {
        case invalid(ChecksumAlgorithm)
        case mismatch(ChecksumAlgorithm)
        case invalidContentMD5
        case contentMD5Mismatch
    }

    private let reason: Reason

    private init(_ reason: Reason) {
        self.reason = reason
    }

    /// An `x-amz-checksum-*` value that is not base64 of the algorithm's length: S3's 400 `InvalidRequest`.
    ///
    /// - Parameter algorithm: the header's algorithm.
    /// - Returns: the refusal.
    public static func invalid(_ algorithm: ChecksumAlgorithm) -> ChecksumError { ChecksumError(.invalid(algorithm)) }

    /// An `x-amz-checksum-*` value the body does not hash to: S3's 400 `BadDigest`.
    ///
    /// - Parameter algorithm: the header's algorithm.
    /// - Returns: the refusal.
    public static func mismatch(_ algorithm: ChecksumAlgorithm) -> ChecksumError {
        ChecksumError(.mismatch(algorithm))
    }

    /// A `Content-MD5` that is not base64 of 16 bytes: S3's 400 `InvalidDigest`.
    public static let invalidContentMD5 = ChecksumError(.invalidContentMD5)

    /// A `Content-MD5` the body does not hash to: S3's 400 `BadDigest`.
    public static let contentMD5Mismatch = ChecksumError(.contentMD5Mismatch)

    /// S3's error code: `InvalidRequest` or `InvalidDigest` for a malformed value, `BadDigest` for a mismatch.
    public var code: String {
        switch self.reason {
        case .invalid: "InvalidRequest"
        case .invalidContentMD5: "InvalidDigest"
        case .mismatch, .contentMD5Mismatch: "BadDigest"
        }
    }

    /// S3's message, word for word.
    public var message: String {
        switch self.reason {
        case .invalid(let algorithm): "Value for \(algorithm.headerName) header is invalid."
        case .mismatch(let algorithm): "The \(algorithm.name) you specified did not match the calculated checksum."
        case .invalidContentMD5: "The Content-MD5 you specified was invalid."
        case .contentMD5Mismatch: "The Content-MD5 you specified did not match what we received."
        }
    }

    /// The checksum's algorithm; nil for `Content-MD5`.
    public var algorithm: ChecksumAlgorithm? {
        switch self.reason {
        case .invalid(let algorithm), .mismatch(let algorithm): algorithm
        case .invalidContentMD5, .contentMD5Mismatch: nil
        }
    }

    /// True when the value was a well-formed checksum that the body does not match (`BadDigest`); false when
    /// it was no checksum at all.
    public var isMismatch: Bool {
        switch self.reason {
        case .mismatch, .contentMD5Mismatch: true
        case .invalid, .invalidContentMD5: false
        }
    }

    /// Always a bad request: S3 answers every checksum refusal 400.
    public var category: ErrorCategory { .invalidInput }

    /// S3's message; it names the header, never the value.
    public var publicMessage: String { self.message }

    /// The code and the message: `BadDigest: The CRC32 you specified did not match the calculated checksum.`
    public var description: String { self.code + ": " + self.message }
}
