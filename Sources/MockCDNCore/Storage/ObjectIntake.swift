import NIOCore

/// Counts and hashes a body as it streams in, and stops it at the size limit. Every store uses it, so
/// every store computes size, SHA-256 and ETag the same way.
public struct ObjectIntake {
    /// Whether the record gets the body's SHA-256.
    public enum Digest: Sendable {
        /// Hashed: the record's `sha256`, and its ETag unless the caller gives one.
        case sha256
        /// Not hashed: for a body whose ETag the caller computes and whose SHA-256 nothing checks (an S3 write
        /// whose signature promised no payload hash). S3's ETag is the body's MD5, which an upload takes
        /// anyway; a SHA-256 beside it would be kept in the record and never read, and it was a fifth of a
        /// large upload's CPU. The caller must give an ETag.
        case etagOnly
    }

    /// What the store learnt of a whole body: handed to the caller's attributes before the object is
    /// committed, so that a caller who was promised a payload hash can refuse the body without hashing it
    /// twice.
    public struct Summary: Sendable, Equatable {
        public let size: Int
        /// SHA-256 of the bytes; nil when taken with `Digest.etagOnly`.
        public let sha256: [UInt8]?

        public init(size: Int, sha256: [UInt8]?) {
            self.size = size
            self.sha256 = sha256
        }
    }

    public let maxBytes: Int
    public private(set) var size = 0
    /// nil with `Digest.etagOnly`.
    private let hasher: SHA256Hasher?
    private var summary: Summary?

    public init(maxBytes: Int, digest: Digest = .sha256) {
        self.maxBytes = maxBytes
        self.hasher = digest == .sha256 ? SHA256Hasher() : nil
    }

    public mutating func take(_ chunk: ByteBuffer) throws {
        self.size += chunk.readableBytes
        guard self.size <= self.maxBytes else { throw MockCDNError.objectTooLarge(limit: self.maxBytes) }
        self.hasher?.update(chunk)
    }

    /// Ends the body: its size and digest. Call it once the last chunk was taken; later calls give the same.
    public mutating func finish() -> Summary {
        if let summary { return summary }
        let summary = Summary(size: self.size, sha256: self.hasher?.finalize())
        self.summary = summary
        return summary
    }

    /// The stored object's metadata, for a body `finish` ended.
    public mutating func metadata(for key: ObjectKey, attributes: ObjectAttributes) -> ObjectMetadata {
        let summary = self.finish()
        return ObjectMetadata(key: key, size: summary.size, sha256: summary.sha256, attributes: attributes)
    }
}
