/// An upload refused by policy; the message is Stream-style and safe to show.
public struct UploadRejection: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { self.message }
}
