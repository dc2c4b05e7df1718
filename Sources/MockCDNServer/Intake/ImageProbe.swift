import MockCDNCore
import NIOCore
import NIOPosix

/// Image headers read without decoding pixels, on the probe pool: for uploads, fixtures and video posters.
enum ImageProbe {
    /// Bytes of an upload kept to probe its header: all of a GIF up to this size (frame counts need the
    /// whole file), else the first `prefixBytes` (enough for the header of every other format).
    static let wholeBytes = 16 * 1024 * 1024
    static let prefixBytes = 1024 * 1024

    /// The header of an image in `format`, read on the probe pool (so long renders never delay it); nil when
    /// the bytes are not such an image.
    ///
    /// - Throws: `MockCDNError.imageSupportMissing` when libvips cannot be loaded: no answer about the bytes.
    static func header(of bytes: ByteBuffer, as format: ImageFormat) async throws(MockCDNError) -> ImageHeader? {
        do {
            let workers = ImageWorkers.shared
            return try await workers.probes.runIfActive { try workers.engine.probe(bytes, as: format) }
        } catch let error as MockCDNError where error == .imageSupportMissing {
            throw error
        } catch {
            return nil
        }
    }
}
