/// The API surfaces a coverage report groups its rows by, in the report's order.
public enum ContractSurface: String, CaseIterable, Sendable, Encodable {
    /// Stream's REST API: uploads, deletes, settings, listings.
    case stream
    /// CometChat's secure media: FATs, presign, uploads.
    case cometchat
    /// CDN reads: statuses, refusals, resizes, posters.
    case media
    /// The S3 API and S3 credentials.
    case s3
    /// CloudFront signed links and cookies.
    case cloudfront
    /// Faults and the clock.
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
