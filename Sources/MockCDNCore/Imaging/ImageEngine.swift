import NIOCore

/// Where libvips runs for a server: in its own process (`Vips`), or in `mockcdn-imaging` children
/// (`VipsWorkers`), which keep libvips' libraries and memory out of the server and give them back when idle.
public enum ImageEngine: Sendable {
    case inProcess
    case workers(VipsWorkers)

    /// The installed worker when there is one (`VipsWorkers.installed`), else in process: a binary built
    /// into a user's own tests (`MockCDNTesting`) has no worker beside it and links the shim in.
    public static var automatic: ImageEngine { VipsWorkers.installed.map { .workers($0) } ?? .inProcess }

    /// Checks that images can be decoded at all.
    ///
    /// - Throws: `MockCDNError.imageSupportMissing` saying what is missing.
    public func requireSupport() throws(MockCDNError) {
        switch self {
        case .inProcess: try Vips.requireModule()
        case .workers(let workers): try workers.requireSupport()
        }
    }

    /// `Vips.probe` where libvips runs.
    public func probe(_ data: ByteBuffer, as format: ImageFormat) throws -> ImageHeader {
        switch self {
        case .inProcess: try Vips.probe(data, as: format)
        case .workers(let workers): try workers.probe(data, as: format)
        }
    }

    /// `Vips.resize` where libvips runs; the parameters are its own.
    public func resize(
        _ data: ByteBuffer,
        as sourceFormat: ImageFormat,
        width: Int,
        height: Int,
        mode: Vips.ResizeMode,
        anchor: Vips.Anchor,
        format: Vips.OutputFormat,
        allFrames: Bool,
        control: Vips.RenderControl?
    ) throws -> ByteBuffer {
        // Both take the same arguments.
        let resize =
            switch self {
            case .inProcess: Vips.resize
            case .workers(let workers): workers.resize
            }
        return try resize(
            data,
            sourceFormat,
            width,
            height,
            mode,
            anchor,
            format,
            Vips.defaultQuality,
            allFrames,
            control
        )
    }
}
