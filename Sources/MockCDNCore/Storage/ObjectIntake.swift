import NIOCore

/// Counts and hashes a body as it streams in, and stops it at the size limit. Every store uses it, so
/// every store computes size, SHA-256 and ETag the same way.
public struct ObjectIntake {
    public let maxBytes: Int
    public private(set) var size = 0
    private let hasher = SHA256Hasher()

    public init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    public mutating func take(_ chunk: ByteBuffer) throws {
        self.size += chunk.readableBytes
        guard self.size <= self.maxBytes else { throw MockCDNError.objectTooLarge(limit: self.maxBytes) }
        self.hasher.update(chunk)
    }

    public func metadata(for key: ObjectKey, attributes: ObjectAttributes) -> ObjectMetadata {
        ObjectMetadata(key: key, size: self.size, sha256: self.hasher.finalize(), attributes: attributes)
    }
}
