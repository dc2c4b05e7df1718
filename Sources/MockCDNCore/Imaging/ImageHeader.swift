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

/// What an image header says, read without decoding pixels.
public struct ImageHeader: Sendable, Equatable {
    public var width: Int
    /// The height of one frame.
    public var height: Int
    /// 1 for a still image.
    public var frames: Int
    /// The format of the file, or nil when vips read it with a loader MockCDN does not name.
    public var format: ImageFormat?

    public init(width: Int, height: Int, frames: Int, format: ImageFormat?) {
        self.width = width
        self.height = height
        self.frames = frames
        self.format = format
    }

    /// Pixels counted the way the resize bound counts them: width x height x frames.
    public var pixelCount: Int { self.width * self.height * self.frames }
}
