import NIOCore

/// An image file format MockCDN reads or writes.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp, gif, heif, bmp, svg

    /// The MIME type MockCDN serves it as.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .gif: "image/gif"
        case .heif: "image/heif"
        case .bmp: "image/bmp"
        case .svg: "image/svg+xml"
        }
    }
}

extension ImageFormat {
    /// The format a MIME type names, aliases included (`image/jpg`, `image/x-ms-bmp`, and the HEIC/HEIF
    /// family, whose brands do not decide the name clients declare); nil for other types. The one table of
    /// image type names: uploads compare declared and sniffed types with it, reads choose a decoder with it.
    public init?(mimeType: String) {
        guard let format = Self.aliases[mimeType] ?? ImageFormat.allCases.first(where: { $0.mimeType == mimeType })
        else {
            return nil
        }
        self = format
    }

    private static let aliases: [String: ImageFormat] = [
        "image/jpg": .jpeg, "image/pjpeg": .jpeg, "image/x-ms-bmp": .bmp, "image/svg": .svg, "image/heic": .heif,
        "image/heic-sequence": .heif, "image/heif-sequence": .heif,
    ]
}

extension ImageFormat {
    /// The format the bytes start like, or nil when they are no image format MockCDN knows.
    ///
    /// - Parameter bytes: the file, or at least its first `MediaSniffer.prefixLength` bytes.
    public init?(sniffing bytes: ByteBuffer) {
        let prefix = Array(bytes.readableBytesView.prefix(MediaSniffer.prefixLength))
        guard let type = MediaSniffer.sniff(prefix), let format = ImageFormat(mimeType: type) else { return nil }
        self = format
    }
}

/// What an image header says, read without decoding pixels.
public struct ImageHeader: Sendable, Equatable {
    public var width: Int
    /// The height of one frame.
    public var height: Int
    /// 1 for a still image.
    public var frames: Int
    /// The format of the file; nil for dimensions read back from stored metadata.
    public var format: ImageFormat?

    public init(width: Int, height: Int, frames: Int, format: ImageFormat?) {
        self.width = width
        self.height = height
        self.frames = frames
        self.format = format
    }
}

extension ImageHeader {
    /// The metadata extras an upload stores for an image (`width`, `height`, `frames`).
    public var extras: [String: String] {
        ["width": String(self.width), "height": String(self.height), "frames": String(self.frames)]
    }

    /// The dimensions stored with an uploaded image; nil when they were not stored.
    ///
    /// - Parameter extras: the object's metadata extras.
    public init?(extras: [String: String]) {
        guard let width = extras["width"].flatMap({ Int($0) }), let height = extras["height"].flatMap({ Int($0) }),
            let frames = extras["frames"].flatMap({ Int($0) })
        else { return nil }
        self.init(width: width, height: height, frames: frames, format: nil)
    }
}
