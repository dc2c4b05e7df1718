import NIOCore

/// A resized image, ready to serve.
public struct ImageVariant: Sendable {
    public let bytes: ByteBuffer
    public let contentType: String
    /// Quoted strong entity tag of these bytes.
    public let etag: String

    public init(bytes: ByteBuffer, contentType: String) {
        self.bytes = bytes
        self.contentType = contentType
        self.etag = "\"" + Digest.sha256(bytes).prefix(16).hexString + "\""
    }

    /// The form a variant is kept in outside memory (a variant file, a bucket object): its content type, a
    /// newline, then the bytes.
    public var stored: ByteBuffer {
        var buffer = ByteBuffer(string: self.contentType + "\n")
        buffer.writeImmutableBuffer(self.bytes)
        return buffer
    }

    /// A variant from its `stored` form, or nil when that is not one: the content type must be printable
    /// ASCII, as it becomes a response header.
    public init?(stored: ByteBuffer) {
        let view = stored.readableBytesView
        guard let newline = view.firstIndex(of: UInt8(ascii: "\n")),
            view[..<newline].allSatisfy({ (0x20...0x7e).contains($0) })
        else { return nil }
        self.init(
            bytes: stored.getSlice(at: newline + 1, length: view.endIndex - newline - 1)!,
            contentType: String(decoding: view[..<newline], as: UTF8.self)
        )
    }
}
