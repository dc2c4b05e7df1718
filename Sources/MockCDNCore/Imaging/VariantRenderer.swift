import NIOCore

/// Turns a source image and a transform into a variant: pixel bound from the header first, then libvips.
public enum VariantRenderer {
    /// Stream's bound on sources it resizes: width x height x frames.
    public static let defaultMaximumPixels = 16_800_000

    /// The format a variant of `source` is written in: the source's own, except HEIC/HEIF (JPEG) and BMP
    /// (PNG); nil for SVG, which is never rasterised.
    public static func outputFormat(for source: ImageFormat) -> Vips.OutputFormat? {
        switch source {
        case .jpeg, .heif: .jpeg
        case .png, .bmp: .png
        case .webp: .webp
        case .gif: .gif
        case .svg: nil
        }
    }

    /// Checks the source's header against the pixel bound; reads no pixels.
    ///
    /// - Parameters:
    ///   - header: the source's header.
    ///   - maximumPixels: the app's bound.
    /// - Throws: `TransformRefusal` (`tooManyPixels`) naming both numbers.
    public static func checkPixels(_ header: ImageHeader, maximumPixels: Int) throws(TransformRefusal) {
        try refuse(
            "Source image has",
            width: header.width,
            height: header.height,
            frames: header.frames,
            above: maximumPixels
        )
    }

    /// Throws when width x height x frames passes the bound, checked for overflow: a header may claim
    /// anything.
    private static func refuse(
        _ subject: String,
        width: Int,
        height: Int,
        frames: Int,
        above maximumPixels: Int
    ) throws(TransformRefusal) {
        let (area, overflow1) = width.multipliedReportingOverflow(by: height)
        let (pixels, overflow2) = area.multipliedReportingOverflow(by: frames)
        guard overflow1 || overflow2 || pixels > maximumPixels else { return }
        throw TransformRefusal(
            kind: .tooManyPixels,
            message: "\(subject) \(overflow1 || overflow2 ? "too many" : String(pixels)) pixels "
                + "(\(width)x\(height), \(frames == 1 ? "1 frame" : "\(frames) frames")), above the resize limit of "
                + "\(maximumPixels)"
        )
    }

    /// Checks what a transform would make: each side at most `ImageTransform.maximumSide`, and width x
    /// height x frames within the same bound as sources, so a few kilobytes of 1x1 frames cannot turn into
    /// gigapixels of output.
    ///
    /// - Parameters:
    ///   - header: the source's header.
    ///   - transform: the transform.
    ///   - maximumPixels: the app's bound.
    /// - Throws: `TransformRefusal`: `invalid` for a side over the maximum, `tooManyPixels` naming both
    ///   numbers.
    public static func checkOutput(
        _ header: ImageHeader,
        transform: ImageTransform,
        maximumPixels: Int
    ) throws(TransformRefusal) {
        guard let box = transform.box(for: header), let size = transform.outputSize(for: header) else { return }
        // clip never enlarges, so only the other modes produce the box itself.
        if transform.resize != .clip, box.width > ImageTransform.maximumSide || box.height > ImageTransform.maximumSide
        {
            throw TransformRefusal(
                kind: .invalid,
                message: "The output would be \(box.width)x\(box.height); each side must be at most "
                    + "\(ImageTransform.maximumSide) (give both w and h)"
            )
        }
        try refuse(
            "The output would have",
            width: size.width,
            height: size.height,
            frames: header.frames,
            above: maximumPixels
        )
    }

    /// Renders a variant. Synchronous and CPU-bound: call it off the event loop.
    ///
    /// - Parameters:
    ///   - source: the whole source file.
    ///   - header: its header (from `Vips.probe`).
    ///   - format: the source's format, as its bytes showed at upload; the decoder for that format alone
    ///     reads it.
    ///   - transform: what to make; not an identity transform.
    ///   - maximumPixels: the app's pixel bound, for the source and the output alike.
    ///   - control: stops the render when its request goes away or its time is up.
    ///   - engine: where libvips runs.
    /// - Returns: the variant.
    /// - Throws: `TransformRefusal`.
    public static func render(
        _ source: ByteBuffer,
        header: ImageHeader,
        format: ImageFormat,
        transform: ImageTransform,
        maximumPixels: Int,
        control: Vips.RenderControl? = nil,
        engine: ImageEngine = .inProcess
    ) throws(TransformRefusal) -> ImageVariant {
        guard let output = outputFormat(for: format) else {
            throw TransformRefusal(kind: .invalid, message: "This image format is served as is, never resized")
        }
        try checkPixels(header, maximumPixels: maximumPixels)
        try checkOutput(header, transform: transform, maximumPixels: maximumPixels)
        guard let box = transform.box(for: header) else {
            throw TransformRefusal(kind: .invalid, message: "Give w, h or both to resize")
        }
        do {
            let bytes = try engine.resize(
                source,
                as: format,
                width: box.width,
                height: box.height,
                mode: transform.resize.mode,
                anchor: transform.crop.anchor,
                format: output,
                allFrames: header.frames > 1 && (output == .gif || output == .webp),
                control: control
            )
            return ImageVariant(bytes: bytes, contentType: output.mimeType)
        } catch {
            throw TransformRefusal(
                kind: .unprocessable,
                message: "The image cannot be resized: \((error as? MockCDNError)?.detail ?? "vips failed")"
            )
        }
    }
}

extension Vips.OutputFormat {
    /// The file format this output is.
    public var imageFormat: ImageFormat {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .gif: .gif
        }
    }

    /// The MIME type of files in this format.
    public var mimeType: String { self.imageFormat.mimeType }
}
