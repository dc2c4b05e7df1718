import MockCDNCore
import NIOCore
import NIOPosix

extension ServerServices {
    /// Bytes read back to probe an image: all of a file up to this size (GIF frame counts need the whole
    /// file), else its first `probePrefixBytes` (enough for the header of every other format).
    static let probeWholeBytes = 16 * 1024 * 1024
    static let probePrefixBytes = 1024 * 1024

    /// Stores an image's width, height and frames, read from its header (no pixels decoded), in its
    /// metadata; uploads and fixtures both go through here.
    ///
    /// - Parameters:
    ///   - object: the stored image.
    ///   - key: its key.
    /// - Returns: the updated metadata, or nil when libvips cannot read the header.
    /// - Throws: storage errors.
    func recordImageDimensions(of object: ObjectMetadata, key: ObjectKey) async throws -> ObjectMetadata? {
        let prefix = try await self.store.collect(
            key,
            range: object.size <= Self.probeWholeBytes ? nil : 0..<Self.probePrefixBytes
        )
        guard let format = ImageFormat(mimeType: object.contentType),
            let header = await Self.imageHeader(of: prefix, as: format)
        else {
            return nil
        }
        return try await self.store.updateMetadata(key) { $0.extras.merge(header.extras) { _, new in new } }
    }

    /// The header of an image in `format`, read on the probe pool (so long renders never delay it); nil when
    /// the bytes are not such an image.
    static func imageHeader(of bytes: ByteBuffer, as format: ImageFormat) async -> ImageHeader? {
        try? await ImageWorkers.shared.probes.runIfActive { try Vips.probe(bytes, as: format) }
    }
}
