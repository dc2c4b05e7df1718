/// The API surfaces a coverage report groups its rows by, in the report's order.
public enum ContractSurface: String, CaseIterable, Sendable, Encodable {
    case stream
    case cometchat
    case media
    case s3
    case cloudfront
    case control

    /// The surface's name for people.
    public var title: String {
        switch self {
        case .stream: "Stream"
        case .cometchat: "CometChat"
        case .media: "CDN reads and media"
        case .s3: "S3"
        case .cloudfront: "CloudFront"
        case .control: "Test control: faults and clock"
        }
    }
}
