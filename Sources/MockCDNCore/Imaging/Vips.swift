import CVipsLoader
import NIOCore
import Synchronization

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

    /// The JPEG and WebP quality of a resize that names none.
    public static let defaultQuality = 85

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
    ///
    /// Its time counts from the start of the render. A render in process makes a vips control for itself; one
    /// in a worker process (`VipsWorkers`) makes one there, and a cancel kills that process.
    public final class RenderControl: Sendable {
        /// How long the render may take.
        public let seconds: Double
        private let cancellation = Mutex<(cancelled: Bool, action: (@Sendable () -> Void)?)>((false, nil))

        /// - Parameter seconds: how long the render may take before it is stopped.
        public init(seconds: Double) {
            self.seconds = seconds
        }

        /// Asks the render to stop; it then fails with "render cancelled".
        public func cancel() {
            self.cancellation.withLock { state in
                state.cancelled = true
                state.action.take()?()
            }
        }

        /// Runs `action` once, when `cancel` is called, or now if it already was; `nil` forgets the action.
        /// The action runs under a lock, so that once `onCancel(nil)` returns none is running.
        func onCancel(_ action: (@Sendable () -> Void)?) {
            self.cancellation.withLock { state in
                if state.cancelled {
                    action?()
                } else {
                    state.action = action
                }
            }
        }
    }

    /// A vips control for one render in process, stopped when `control` is cancelled.
    private struct ShimControl: @unchecked Sendable {
        // The C side reads and writes its flag atomically; the pointer never changes, and is freed only once
        // `control` runs no more actions. Nil when the shim cannot be loaded (the render then fails saying why).
        let pointer: OpaquePointer?

        init(_ control: RenderControl?) {
            self.pointer = control.map { CVipsShim_control_new($0.seconds) } ?? nil
        }

        func cancel() {
            if let pointer = self.pointer { CVipsShim_control_cancel(pointer) }
        }
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
        return ImageHeader(header, format: source.format)
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
        quality: Int = Vips.defaultQuality,
        allFrames: Bool = false,
        control: RenderControl? = nil
    ) throws -> ByteBuffer {
        try self.requireModule()
        let source = try shimSource(sourceFormat ?? ImageFormat(sniffing: data))
        let shimControl = ShimControl(control)
        control?.onCancel { shimControl.cancel() }
        defer {
            control?.onCancel(nil)
            CVipsShim_control_free(shimControl.pointer)
        }
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
                    shimControl.pointer,
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
    static func shimSource(_ format: ImageFormat?) throws -> (format: ImageFormat, shim: CVipsShimSource) {
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

extension ImageHeader {
    /// The header the shim read from a file in `format`.
    init(_ header: CVipsShimHeader, format: ImageFormat) {
        self.init(
            width: Int(header.width),
            height: Int(header.page_height),
            frames: max(1, Int(header.pages)),
            format: format
        )
    }
}

extension String {
    func trimmingSuffix(_ suffix: Character) -> String {
        var text = self
        while text.last == suffix { text.removeLast() }
        return text
    }
}
