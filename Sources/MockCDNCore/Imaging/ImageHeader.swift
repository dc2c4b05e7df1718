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
