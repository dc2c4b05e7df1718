/// A resize asked for with Stream's query parameters: `w`, `h` (1...4096 or `*`), `resize`
/// (`clip|crop|scale|fill`, default clip) and `crop` (`center|top|bottom|left|right`, default center);
/// `ro` is accepted and ignored.
public struct ImageTransform: Sendable, Equatable, Hashable {
    public enum Resize: String, Sendable, CaseIterable {
        case clip, crop, scale, fill

        var mode: Vips.ResizeMode {
            switch self {
            case .clip: .fit
            case .crop: .cover
            case .scale: .force
            case .fill: .pad
            }
        }
    }

    public enum Crop: String, Sendable, CaseIterable {
        case center, top, bottom, left, right

        var anchor: Vips.Anchor {
            switch self {
            case .center: .center
            case .top: .top
            case .bottom: .bottom
            case .left: .left
            case .right: .right
            }
        }
    }

    /// The largest side a client may ask for.
    public static let maximumSide = 4096
    /// The query parameters that ask for a transform.
    public static let parameterNames: Set<String> = ["w", "h", "resize", "crop", "ro"]

    /// nil: follows the aspect ratio (missing or `*`).
    public var width: Int?
    public var height: Int?
    public var resize: Resize
    public var crop: Crop

    public init(width: Int?, height: Int?, resize: Resize = .clip, crop: Crop = .center) {
        self.width = width
        self.height = height
        self.resize = resize
        self.crop = crop
    }

    /// Why transform parameters were refused; the message names the parameter.
    public struct Invalid: Error, Sendable, Equatable {
        public let message: String
    }

    /// Reads the transform parameters of a query.
    ///
    /// - Parameter query: percent-decoded query items; other parameters are ignored, the first of a
    ///   repeated one counts.
    /// - Returns: nil when the query asks for no resize (no `w`, `h`, `resize` or `crop`; `ro` alone is
    ///   ignored).
    /// - Throws: `Invalid` naming the malformed parameter.
    public static func parse(_ query: [(name: String, value: String)]) throws(Invalid) -> ImageTransform? {
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        let width = value("w")
        let height = value("h")
        let resize = value("resize")
        let crop = value("crop")
        guard width != nil || height != nil || resize != nil || crop != nil else { return nil }
        return try ImageTransform(width: width, height: height, resize: resize, crop: crop, names: ("w", "h"))
    }

    /// Validates the parts of a transform given as text (query values, or an `upload_sizes` entry).
    ///
    /// - Parameters:
    ///   - width: `1...4096`, `*` or nil.
    ///   - height: the same.
    ///   - resize: a `Resize` name or nil (clip).
    ///   - crop: a `Crop` name or nil (center).
    ///   - names: what to call the width and height in a message (`w`/`h`, or `width`/`height`).
    /// - Throws: `Invalid` naming the malformed part.
    public init(
        width: String?,
        height: String?,
        resize: String?,
        crop: String?,
        names: (width: String, height: String)
    ) throws(Invalid) {
        func side(_ text: String?, _ name: String) throws(Invalid) -> Int? {
            guard let text, text != "*" else { return nil }
            guard text.utf8.count <= 5, text.utf8.allSatisfy({ (48...57).contains($0) }), let value = Int(text),
                (1...Self.maximumSide).contains(value)
            else {
                throw Invalid(message: "\(name) must be an integer from 1 to \(Self.maximumSide), or *")
            }
            return value
        }
        self.width = try side(width, names.width)
        self.height = try side(height, names.height)
        if let resize {
            guard let mode = Resize(rawValue: resize) else {
                throw Invalid(message: "resize must be one of clip, crop, scale, fill")
            }
            self.resize = mode
        } else {
            self.resize = .clip
        }
        if let crop {
            guard let anchor = Crop(rawValue: crop) else {
                throw Invalid(message: "crop must be one of center, top, bottom, left, right")
            }
            self.crop = anchor
        } else {
            self.crop = .center
        }
    }

    /// The thumbnail Stream links to from an uploaded image (`thumb_url`).
    public static let thumbnail = ImageTransform(width: 150, height: 150)

    /// True when neither side is given: the answer is the original.
    public var isIdentity: Bool { self.width == nil && self.height == nil }

    /// The transform spelled out (`w=150&h=*&resize=clip`, `crop` only where it matters): the variant
    /// cache key, and the query text links carry.
    public var normalized: String {
        "w=\(self.width.map(String.init) ?? "*")&h=\(self.height.map(String.init) ?? "*")&resize=\(self.resize.rawValue)"
            + (self.resize == .crop ? "&crop=\(self.crop.rawValue)" : "")
    }

    /// The box the source is resized into: a missing side follows the source's aspect ratio.
    ///
    /// - Parameter source: the source's header.
    /// - Returns: width and height, each at least 1; nil for an identity transform.
    public func box(for source: ImageHeader) -> (width: Int, height: Int)? {
        switch (self.width, self.height) {
        case (nil, nil): return nil
        case (let width?, let height?): return (width, height)
        case (let width?, nil):
            return (
                width, max(1, Int((Double(width) * Double(source.height) / Double(max(1, source.width))).rounded()))
            )
        case (nil, let height?):
            return (
                max(1, Int((Double(height) * Double(source.width) / Double(max(1, source.height))).rounded())), height
            )
        }
    }

    /// The size the output will have: the box, except that `clip` fits inside it and never enlarges.
    ///
    /// - Parameter source: the source's header.
    /// - Returns: width and height of one output frame; nil for an identity transform.
    public func outputSize(for source: ImageHeader) -> (width: Int, height: Int)? {
        guard let box = self.box(for: source) else { return nil }
        guard self.resize == .clip else { return box }
        let scale = min(
            1,
            Double(box.width) / Double(max(1, source.width)),
            Double(box.height) / Double(max(1, source.height))
        )
        return (
            max(1, Int((Double(source.width) * scale).rounded())),
            max(1, Int((Double(source.height) * scale).rounded()))
        )
    }
}
