import CVipsLoader
import NIOCore

/// libvips through CVipsShim: header probes, resizes and encodes. Every call is synchronous and may take
/// a while on a large image, so servers call it off their event loops.
public enum Vips {
    /// How a resize fits the source into the target box.
    public enum ResizeMode: Sendable, CaseIterable {
        /// Fit inside keeping the aspect ratio, never enlarging (Stream's `clip`).
        case fit
        /// Cover and cut to exactly the box at an anchor (Stream's `crop`).
        case cover
        /// Exactly the box, aspect ignored (Stream's `scale`).
        case force
        /// Fit inside, then pad with black to exactly the box (Stream's `fill`).
        case pad

        var shimValue: CVipsShimMode {
            switch self {
            case .fit: CVipsShimModeFit
            case .cover: CVipsShimModeCover
            case .force: CVipsShimModeForce
            case .pad: CVipsShimModePad
            }
        }
    }

    /// Which part a cover resize keeps.
    public enum Anchor: Sendable, CaseIterable {
        case center, top, bottom, left, right

        var shimValue: CVipsShimAnchor {
            switch self {
            case .center: CVipsShimAnchorCenter
            case .top: CVipsShimAnchorTop
            case .bottom: CVipsShimAnchorBottom
            case .left: CVipsShimAnchorLeft
            case .right: CVipsShimAnchorRight
            }
        }
    }

    /// Formats vips encodes to.
    public enum OutputFormat: Sendable, CaseIterable {
        case jpeg, png, webp, gif

        var shimValue: CVipsShimFormat {
            switch self {
            case .jpeg: CVipsShimFormatJPEG
            case .png: CVipsShimFormatPNG
            case .webp: CVipsShimFormatWebP
            case .gif: CVipsShimFormatGIF
            }
        }
    }

    /// Loads the libvips module, once; cheap after the first time.
    ///
    /// - Throws: `MockCDNError.imageSupportMissing` naming the file when the module cannot be loaded.
    public static func requireModule() throws(MockCDNError) {
        var error: UnsafeMutablePointer<CChar>?
        guard CVipsShim_load(&error) == 0 else { return }
        let message = error.map { String(cString: $0) } ?? "image support is not installed"
        CVipsShim_free(error)
        throw MockCDNError.imageSupportMissing(message)
    }

    /// Starts libvips; called by every operation, cheap after the first time.
    ///
    /// - Throws: `MockCDNError.imageFailure` when libvips cannot start.
    public static func initialize() throws {
        try call { error in CVipsShim_initialize(&error) }
    }

    /// Stops a render from another task, or once its time is up; vips checks it as it computes pixels.
    public final class RenderControl: @unchecked Sendable {
        // The C side reads and writes the flag atomically; the pointer itself never changes. Nil when the
        // shim cannot be loaded, and then the render it was made for fails saying why.
        fileprivate let pointer: OpaquePointer?

        /// - Parameter seconds: how long the render may take before it is stopped.
        public init(seconds: Double) {
            self.pointer = CVipsShim_control_new(seconds)
        }

        /// Asks the render to stop; it then fails with "render cancelled".
        public func cancel() {
            if let pointer = self.pointer { CVipsShim_control_cancel(pointer) }
        }

        deinit { CVipsShim_control_free(self.pointer) }
    }

    /// Reads an image's header (size, frames, format) without decoding its pixels.
    ///
    /// - Parameters:
    ///   - data: the encoded image.
    ///   - format: the format the bytes must be in; by default the one their first bytes show.
    /// - Returns: the header.
    /// - Throws: `MockCDNError.imageFailure` when the bytes are not an image in a format MockCDN decodes, or
    ///   not in `format`; `.imageSupportMissing` without the libvips module.
    public static func probe(_ data: ByteBuffer, as format: ImageFormat? = nil) throws -> ImageHeader {
        try self.requireModule()
        let source = try shimSource(format ?? ImageFormat(sniffing: data))
        var header = CVipsShimHeader()
        try data.withUnsafeReadableBytes { bytes in
            try call { error in
                CVipsShim_probe(bytes.baseAddress ?? emptyBase, bytes.count, source.shim, &header, &error)
            }
        }
        return ImageHeader(
            width: Int(header.width),
            height: Int(header.page_height),
            frames: max(1, Int(header.pages)),
            format: source.format
        )
    }

    /// Resizes an encoded image and encodes the result.
    ///
    /// - Parameters:
    ///   - data: the encoded source.
    ///   - sourceFormat: the format the source must be in; by default the one its first bytes show.
    ///   - width: the target box width, at least 1.
    ///   - height: the target box height, at least 1.
    ///   - mode: how the source fits the box.
    ///   - anchor: the part kept by `.cover`.
    ///   - format: the output format.
    ///   - quality: 1...100, for JPEG and WebP.
    ///   - allFrames: keep every frame of an animation (else the first only).
    ///   - control: stops the render when cancelled or out of time.
    /// - Returns: the encoded result.
    /// - Throws: `MockCDNError.imageFailure` with vips' message; `.imageSupportMissing` without the libvips
    ///   module.
    public static func resize(
        _ data: ByteBuffer,
        as sourceFormat: ImageFormat? = nil,
        width: Int,
        height: Int,
        mode: ResizeMode,
        anchor: Anchor = .center,
        format: OutputFormat,
        quality: Int = 85,
        allFrames: Bool = false,
        control: RenderControl? = nil
    ) throws -> ByteBuffer {
        try self.requireModule()
        let source = try shimSource(sourceFormat ?? ImageFormat(sniffing: data))
        return try data.withUnsafeReadableBytes { bytes in
            try output { out, length, error in
                CVipsShim_resize(
                    bytes.baseAddress ?? emptyBase,
                    bytes.count,
                    source.shim,
                    Int32(clamping: width),
                    Int32(clamping: height),
                    mode.shimValue,
                    anchor.shimValue,
                    format.shimValue,
                    Int32(clamping: quality),
                    allFrames ? 1 : 0,
                    control?.pointer,
                    &out,
                    &length,
                    &error
                )
            }
        }
    }

    // MARK: - Helpers

    /// A valid pointer for empty inputs: the C side reads zero bytes from it.
    private static var emptyBase: UnsafeRawPointer { UnsafeRawPointer(bitPattern: 1)! }

    private static func call(_ body: (inout UnsafeMutablePointer<CChar>?) -> Int32) throws {
        var error: UnsafeMutablePointer<CChar>?
        let status = body(&error)
        defer { CVipsShim_free(error) }
        guard status == 1 else {
            let message = error.map { String(cString: $0) } ?? "vips failed"
            throw MockCDNError.imageFailure(message.trimmingSuffix("\n"))
        }
    }

    private static func output(
        _ body: (inout UnsafeMutableRawPointer?, inout Int, inout UnsafeMutablePointer<CChar>?) -> Int32
    ) throws -> ByteBuffer {
        var out: UnsafeMutableRawPointer?
        var length = 0
        try call { error in body(&out, &length, &error) }
        defer { CVipsShim_free(out) }
        guard let out else { throw MockCDNError.imageFailure("vips returned no data") }
        return ByteBuffer(bytes: UnsafeRawBufferPointer(start: out, count: length))
    }

    /// The shim's name for a format it decodes; SVG and unknown bytes are refused.
    private static func shimSource(_ format: ImageFormat?) throws -> (format: ImageFormat, shim: CVipsShimSource) {
        switch format {
        case .jpeg: (.jpeg, CVipsShimSourceJPEG)
        case .png: (.png, CVipsShimSourcePNG)
        case .webp: (.webp, CVipsShimSourceWebP)
        case .gif: (.gif, CVipsShimSourceGIF)
        case .heif: (.heif, CVipsShimSourceHEIF)
        case .bmp: (.bmp, CVipsShimSourceBMP)
        case .svg, nil: throw MockCDNError.imageFailure("not an image format MockCDN decodes")
        }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: Character) -> String {
        var text = self
        while text.last == suffix { text.removeLast() }
        return text
    }
}
