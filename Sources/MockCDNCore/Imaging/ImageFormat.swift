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
