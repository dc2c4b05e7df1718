/// Stream's per-app upload restrictions (`file_upload_config`, `image_upload_config` of UpdateAppSettings).
public struct UploadConfig: Sendable, Codable, Equatable {
    public var allowedFileExtensions: [String]
    public var blockedFileExtensions: [String]
    public var allowedMimeTypes: [String]
    public var blockedMimeTypes: [String]
    /// Bytes; 0 means the default (100 MiB).
    public var sizeLimit: Int

    public init(
        allowedFileExtensions: [String] = [],
        blockedFileExtensions: [String] = [],
        allowedMimeTypes: [String] = [],
        blockedMimeTypes: [String] = [],
        sizeLimit: Int = 0
    ) {
        self.allowedFileExtensions = allowedFileExtensions
        self.blockedFileExtensions = blockedFileExtensions
        self.allowedMimeTypes = allowedMimeTypes
        self.blockedMimeTypes = blockedMimeTypes
        self.sizeLimit = sizeLimit
    }

    /// Missing members take their defaults, so `PATCH /app` may send only what it changes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.allowedFileExtensions = try container.decodeIfPresent([String].self, forKey: .allowedFileExtensions) ?? []
        self.blockedFileExtensions = try container.decodeIfPresent([String].self, forKey: .blockedFileExtensions) ?? []
        self.allowedMimeTypes = try container.decodeIfPresent([String].self, forKey: .allowedMimeTypes) ?? []
        self.blockedMimeTypes = try container.decodeIfPresent([String].self, forKey: .blockedMimeTypes) ?? []
        self.sizeLimit = try container.decodeIfPresent(Int.self, forKey: .sizeLimit) ?? 0
    }

    /// The members a configuration may have, as JSON and YAML spell them.
    public static var memberNames: [String] { CodingKeys.allCases.map(\.rawValue) }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case allowedFileExtensions = "allowed_file_extensions"
        case blockedFileExtensions = "blocked_file_extensions"
        case allowedMimeTypes = "allowed_mime_types"
        case blockedMimeTypes = "blocked_mime_types"
        case sizeLimit = "size_limit"
    }
}
