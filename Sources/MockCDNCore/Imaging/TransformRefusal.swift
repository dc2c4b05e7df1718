/// Why a transform cannot be served.
public struct TransformRefusal: Error, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The request is wrong for this object (not an image, box too large): 400.
        case invalid
        /// The source is over the pixel bound: 422.
        case tooManyPixels
        /// libvips cannot read or resize the source: 422.
        case unprocessable
    }

    public let kind: Kind
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }
}
