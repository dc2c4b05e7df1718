import Foundation
import MockCDNCore
import Yams

/// The YAML file `mockcdn serve --config` reads: the apps, their keys, upload settings and link lifetime.
///
/// ```yaml
/// apps:
///   - app_id: acme
///     api_key: acme-key
///     api_secret: acme-secret-at-least-32-bytes-long!!
///     region: eu                       # CometChat region; default "us"
///     s3_region: eu-west-1             # region S3 presigned URLs are scoped to; default "us-east-1"
///     link_ttl: 1209600                # seconds; default 14 days
///     presign_ttl: 300                 # seconds, 1...604800; default 300
///     max_source_pixels: 16800000      # width x height x frames a resize accepts; default 16.8 million
///     inline_active_content: false     # serve HTML/SVG/XML/JS inline, unsandboxed; default false
///     media_url_access: fat            # CometChat media URLs: fat (plain) or presigned (CloudFront canned)
///     presigned_url_ttl: 86400         # seconds, 900...2592000, of those presigned media URLs; default 1 day
///     s3_size_limit: 2147483648        # bytes, up to 5 TiB, an S3-addressed write may store; default: the
///                                      # upload policy's limit for the key's kind (100 MiB at most)
///     keys:                            # default: one RSA-2048 pair derived from api_secret
///       - id: KACME000000001
///         status: active               # active | accepted | retired
///         private_key: keys/acme.pem   # path, relative to this file
///       - id: KACMEOLD000001
///         status: accepted
///         public_key: keys/old.pub.pem
///     file_upload_config: { blocked_file_extensions: [".exe"] }
///     image_upload_config: { size_limit: 10485760 }
///     notifications:                   # upload events' targets (docs/events.md); default: none
///       webhooks:
///         - { id: thumbs, url: "http://127.0.0.1:9000/hook", events: ["s3:ObjectCreated:*"], prefix: images/ }
///       queues:
///         - { id: q, arn: "arn:aws:sqs:us-east-1:000000000000:uploads", events: ["s3:ObjectRemoved:*"] }
///     webhooks:                        # vendor-shaped webhooks' URLs (docs/webhooks.md); default: none
///       stream: { webhook_url: "http://127.0.0.1:9000/stream", enable_hook_payload_compression: false }
///       cometchat:
///         - { id: hooks, webhookURL: "http://127.0.0.1:9000/cc", triggers: [message_sent], retryOnFailure: true }
/// ```
///
/// The demo app stays first unless an entry with `app_id: demo` replaces it.
public struct ConfigurationFile: Decodable, Sendable {
    struct App: Decodable {
        struct Key: Decodable {
            let id: String
            let status: CloudFrontKeyPair.Status
            let privateKey: String?
            let publicKey: String?

            enum CodingKeys: String, CodingKey {
                case id, status
                case privateKey = "private_key"
                case publicKey = "public_key"
            }
        }

        let appID: String
        let apiKey: String
        let apiSecret: String
        let region: String?
        let s3Region: String?
        let linkTTL: Int64?
        let presignTTL: Int64?
        let maximumSourcePixels: Int?
        let inlineActiveContent: Bool?
        let mediaURLAccess: String?
        let presignedURLTTL: Int64?
        let uploadURLTTL: Int64?
        let uploadStallTimeout: Int64?
        let s3SizeLimit: Int?
        let keys: [Key]?
        let fileUploadConfig: UploadConfig?
        let imageUploadConfig: UploadConfig?
        let notifications: NotificationConfiguration?

        enum CodingKeys: String, CodingKey {
            case keys, region, notifications
            case appID = "app_id"
            case apiKey = "api_key"
            case apiSecret = "api_secret"
            case s3Region = "s3_region"
            case linkTTL = "link_ttl"
            case presignTTL = "presign_ttl"
            case maximumSourcePixels = "max_source_pixels"
            case inlineActiveContent = "inline_active_content"
            case mediaURLAccess = "media_url_access"
            case presignedURLTTL = "presigned_url_ttl"
            case uploadURLTTL = "upload_url_ttl"
            case uploadStallTimeout = "upload_stall_timeout"
            case s3SizeLimit = "s3_size_limit"
            case fileUploadConfig = "file_upload_config"
            case imageUploadConfig = "image_upload_config"
        }
    }

    /// The `server:` section: the settings of `ServeSetting`, by name, as text.
    let server: [String: String]?
    let apps: [App]?

    /// Every key the file may have: any other stops the server at start, naming the file, the line and
    /// the column, so a misspelt key (`prot:`, `regoin:`) is never quietly ignored.
    static let shape: MemberShape = {
        let uploadConfig = MemberShape.object(
            Dictionary(uniqueKeysWithValues: UploadConfig.memberNames.map { ($0, .value) })
        )
        let key = MemberShape.object(["id": .value, "status": .value, "private_key": .value, "public_key": .value])
        let app = MemberShape.object([
            "app_id": .value, "api_key": .value, "api_secret": .value, "region": .value, "s3_region": .value,
            "link_ttl": .value, "presign_ttl": .value, "max_source_pixels": .value, "inline_active_content": .value,
            "media_url_access": .value, "presigned_url_ttl": .value, "upload_url_ttl": .value,
            "upload_stall_timeout": .value, "s3_size_limit": .value, "keys": .list(key),
            "file_upload_config": uploadConfig, "image_upload_config": uploadConfig,
            "notifications": NotificationConfiguration.shape, "webhooks": Self.webhooksShape,
        ])
        let server = MemberShape.object(
            Dictionary(uniqueKeysWithValues: ServeSetting.all.filter { $0.configKey != nil }.map { ($0.name, .value) })
        )
        return .object(["apps": .list(app), "server": server])
    }()

    /// The largest config file read.
    static let maximumLength = 1024 * 1024

    /// Reads the file's `server:` section as settings; paths in it are resolved against the file's folder.
    ///
    /// - Parameter path: the YAML file.
    /// - Returns: the settings the file gives.
    /// - Throws: `MockCDNError.invalidConfiguration` naming the file and, from the YAML parser, the line.
    public static func settings(from path: String) throws -> ServeSettings {
        let (file, folder) = try self.read(path)
        var values: [ServeSetting: ServeSettings.Value] = [:]
        for (name, text) in file.server ?? [:] {
            guard let setting = ServeSetting.all.first(where: { $0.name == name }), let key = setting.configKey else {
                throw MockCDNError.invalidConfiguration("\(path): server.\(name) is not a setting")
            }
            // A path is relative to the file's folder; `none` for fixtures, as with the flag, is a word.
            let resolved =
                setting.kind == .path && !(setting == .fixtures && text == "none")
                ? URL(fileURLWithPath: text, relativeTo: folder).path : text
            values[setting] = ServeSettings.Value(text: resolved, source: "\(path): \(key)")
        }
        return ServeSettings(values: values)
    }

    /// A number of seconds from the file: nil when absent, the value when it lies in `range`.
    ///
    /// - Throws: `MockCDNError.invalidConfiguration` naming the file, the app and the key otherwise.
    private static func seconds(
        _ value: Int64?,
        in range: ClosedRange<Int64>,
        key: String,
        of app: String,
        _ path: String,
        note: String = ""
    ) throws -> Int64? {
        guard let value else { return nil }
        guard range.contains(value) else {
            throw MockCDNError.invalidConfiguration(
                "\(path): app \(app): \(key) must be \(range.lowerBound)...\(range.upperBound) seconds\(note)"
            )
        }
        return value
    }

    /// Reads the file and resolves key paths against its folder.
    ///
    /// - Parameter path: the YAML file.
    /// - Returns: the apps, demo first unless replaced.
    /// - Throws: `MockCDNError.invalidConfiguration` naming the file and, from the YAML parser, the line.
    public static func apps(from path: String) throws -> [AppConfiguration] {
        let (file, folder) = try self.read(path)
        var apps = [AppConfiguration.demo]
        for app in file.apps ?? [] {
            var configuration = AppConfiguration(
                appID: app.appID,
                apiKey: app.apiKey,
                apiSecret: app.apiSecret,
                region: app.region ?? "us",
                fileUploadConfig: app.fileUploadConfig ?? UploadConfig(),
                imageUploadConfig: app.imageUploadConfig ?? UploadConfig()
            )
            if let s3Region = app.s3Region {
                // Checked here too (AppRegistry checks again) so the message names the file and the key.
                guard AppConfiguration.isValidS3Region(s3Region) else {
                    throw MockCDNError.invalidConfiguration(
                        "\(path): app \(app.appID): s3_region must be 1-32 of a-z 0-9 - (an AWS region name)"
                    )
                }
                configuration.s3Region = s3Region
            }
            if let ttl = app.linkTTL {
                guard ttl > 0 else {
                    throw MockCDNError.invalidConfiguration("\(path): app \(app.appID): link_ttl must be positive")
                }
                configuration.linkTTL = ttl
            }
            if let ttl = try Self.seconds(
                app.presignTTL,
                in: 1...SigV4.maximumExpires,
                key: "presign_ttl",
                of: app.appID,
                path
            ) {
                configuration.presignTTL = ttl
            }
            if let pixels = app.maximumSourcePixels {
                guard pixels > 0 else {
                    throw MockCDNError.invalidConfiguration(
                        "\(path): app \(app.appID): max_source_pixels must be positive"
                    )
                }
                configuration.maximumSourcePixels = pixels
            }
            if let inline = app.inlineActiveContent { configuration.inlineActiveContent = inline }
            if let access = app.mediaURLAccess {
                guard let mode = AppConfiguration.MediaURLAccess(rawValue: access) else {
                    throw MockCDNError.invalidConfiguration(
                        "\(path): app \(app.appID): media_url_access must be fat or presigned"
                    )
                }
                configuration.mediaURLAccess = mode
            }
            if let ttl = try Self.seconds(
                app.presignedURLTTL,
                in: AppConfiguration.presignedURLTTLRange,
                key: "presigned_url_ttl",
                of: app.appID,
                path,
                note: " (15 minutes to 30 days)"
            ) {
                configuration.presignedURLTTL = ttl
            }
            let uploadTTL = AppConfiguration.uploadURLTTLRange
            if let ttl = try Self.seconds(app.uploadURLTTL, in: uploadTTL, key: "upload_url_ttl", of: app.appID, path) {
                configuration.uploadURLTTL = ttl
            }
            let stall = AppConfiguration.uploadStallTimeoutRange
            if let seconds = try Self.seconds(
                app.uploadStallTimeout,
                in: stall,
                key: "upload_stall_timeout",
                of: app.appID,
                path
            ) {
                configuration.uploadStallTimeout = seconds
            }
            if let limit = app.s3SizeLimit {
                guard AppConfiguration.s3SizeLimitRange.contains(limit) else {
                    throw MockCDNError.invalidConfiguration(
                        "\(path): app \(app.appID): s3_size_limit must be 1...\(AppConfiguration.s3SizeLimitRange.upperBound) "
                            + "(bytes, up to 5 TiB)"
                    )
                }
                configuration.s3SizeLimit = limit
            }
            configuration.keyPairs = try (app.keys ?? []).map { key in
                func read(_ relative: String?) throws -> String? {
                    guard let relative else { return nil }
                    let file = URL(fileURLWithPath: relative, relativeTo: folder)
                    do {
                        return try String(contentsOf: file, encoding: .utf8)
                    } catch {
                        throw MockCDNError.invalidConfiguration(
                            "\(path): app \(app.appID): key \(key.id): cannot read \(file.path)"
                        )
                    }
                }
                return AppConfiguration.KeyPair(
                    id: key.id,
                    status: key.status,
                    privateKeyPEM: try read(key.privateKey),
                    publicKeyPEM: try read(key.publicKey)
                )
            }
            if let index = apps.firstIndex(where: { $0.appID == app.appID }) {
                apps[index] = configuration
            } else {
                apps.append(configuration)
            }
        }
        return apps
    }

    /// Reads the apps' notification targets (`apps[].notifications`), checked.
    ///
    /// - Parameter path: the YAML file.
    /// - Returns: each app's targets, by app id; apps without any are absent.
    /// - Throws: `MockCDNError.invalidConfiguration` naming the file, the app and the bad member.
    static func notifications(from path: String) throws -> [String: NotificationConfiguration] {
        var configurations: [String: NotificationConfiguration] = [:]
        for app in try self.read(path).0.apps ?? [] {
            guard let notifications = app.notifications else { continue }
            do {
                configurations[app.appID] = try notifications.validated()
            } catch {
                throw MockCDNError.invalidConfiguration("\(path): app \(app.appID): notifications: \(error.message)")
            }
        }
        return configurations
    }

    /// Reads one vendor's section of the apps' vendor webhooks (`apps[].webhooks.stream`,
    /// `apps[].webhooks.cometchat`) as the type of the surface that owns it, which checks it.
    ///
    /// - Parameters:
    ///   - type: the section's type.
    ///   - vendor: the section's name.
    ///   - path: the YAML file.
    /// - Returns: each app's section, by app id; apps without one are absent.
    /// - Throws: `MockCDNError.invalidConfiguration` naming the file, the line and the bad member.
    static func webhooks<Section: Decodable>(
        _ type: Section.Type,
        of vendor: String,
        from path: String
    ) throws -> [String: Section] {
        let file = try self.read(
            path,
            as: WebhookSections<Section>.self,
            userInfo: [WebhookSections<Section>.vendor: vendor]
        ).0
        var sections: [String: Section] = [:]
        for app in file.apps ?? [] { sections[app.appID] = app.section }
        return sections
    }

    /// The members `apps[].webhooks` may have: each vendor's settings, as its set-up calls take them.
    static let webhooksShape: MemberShape = {
        let values = { (names: [String]) in
            MemberShape.object(Dictionary(uniqueKeysWithValues: names.map { ($0, MemberShape.value) }))
        }
        let hook = values([
            "id", "hook_type", "enabled", "event_types", "webhook_url", "product", "should_send_custom_events",
        ])
        return .object([
            "stream": .object([
                "webhook_url": .value, "webhook_events": .value, "enable_hook_payload_compression": .value,
                "event_hooks": .list(hook),
            ]),
            "cometchat": .list(
                values([
                    "id", "name", "webhookURL", "useBasicAuth", "username", "password", "enabled", "retryOnFailure",
                    "triggers",
                ])
            ),
        ])
    }()

    /// Reads and decodes the file; gives its folder too, for relative paths.
    private static func read<File: Decodable>(
        _ path: String,
        as type: File.Type = ConfigurationFile.self,
        userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) throws -> (File, URL) {
        let url = URL(fileURLWithPath: path)
        let text: String
        do {
            let data = try Data(contentsOf: url)
            guard data.count <= maximumLength else {
                throw MockCDNError.invalidConfiguration("\(path): larger than 1 MiB")
            }
            text = String(decoding: data, as: UTF8.self)
        } catch let error as MockCDNError {
            throw error
        } catch {
            throw MockCDNError.invalidConfiguration("\(path): cannot read: \(error.localizedDescription)")
        }
        let file: File
        var root: Node?
        do {
            root = try Yams.compose(yaml: text)
            if let root, let unknown = Self.shape.unknownMember(inYAML: root) {
                throw MockCDNError.invalidConfiguration(
                    "\(path): \(Self.place(unknown.mark))\(unknown.name) is not a setting"
                )
            }
            // Two apps of one id or key: the second would replace the first (or answer for it), which nothing in
            // the file should do quietly.
            if let root, let repeated = Self.repeatedAppMember(in: root) {
                let first = repeated.first.map { " (first at line \($0.line), column \($0.column))" } ?? ""
                throw MockCDNError.invalidConfiguration(
                    "\(path): \(Self.place(repeated.second))\(repeated.member) \"\(repeated.value)\" is given to two "
                        + "apps\(first); each app needs its own"
                )
            }
            file = try YAMLDecoder().decode(File.self, from: text, userInfo: userInfo)
        } catch let error as YamlError {
            throw MockCDNError.invalidConfiguration("\(path): \(Self.describe(error))")
        } catch let error as DecodingError {
            throw MockCDNError.invalidConfiguration("\(path): \(Self.describe(error, in: root))")
        }
        return (file, url.deletingLastPathComponent())
    }

    /// The parser's problem and where it is, never the offending text: it may be a secret.
    private static func describe(_ error: YamlError) -> String {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            return "line \(mark.line), column \(mark.column): \(problem)"
        case .reader(let problem, let offset, _, _):
            return "byte \(offset ?? 0): \(problem)"
        case .duplicatedKeysInMapping(let duplicates, let context):
            return
                "line \(context.mark.line), column \(context.mark.column): duplicated keys \(duplicates.joined(separator: ", "))"
        default:
            return "not valid YAML"
        }
    }

    /// The decoder's problem, at its line in `root` where the path leads there, in the file's words.
    private static func describe(_ error: DecodingError, in root: Node?) -> String {
        func location(_ path: [any CodingKey]) -> String {
            path.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined().drop { $0 == "." }.description
        }
        func node(_ path: [any CodingKey]) -> Node? { root.flatMap { Self.node(at: path, in: $0) } }
        switch error {
        case .keyNotFound(let key, let context):
            let place = Self.place(node(context.codingPath)?.mark)
            return "\(place)\(location(context.codingPath + [key])): required key is missing"
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            guard let found = node(context.codingPath) else {
                return "\(location(context.codingPath)): \(context.debugDescription)"
            }
            // A scalar of the wrong kind is not echoed: it may be a secret.
            let instead = if case .scalar = found { "" } else { ", not \(Self.kind(of: found))" }
            return "\(Self.place(found.mark))\(location(context.codingPath)) must be \(Self.kind(expected: type))"
                + instead
        case .dataCorrupted(let context):
            // A YAML syntax error arrives wrapped; the parser's own message carries line and column.
            if let yaml = context.underlyingError as? YamlError { return Self.describe(yaml) }
            return "\(location(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

/// One vendor's section of every app's `webhooks`, the vendor named in the decoder's user info.
private struct WebhookSections<Section: Decodable>: Decodable {
    static var vendor: CodingUserInfoKey { CodingUserInfoKey(rawValue: "mockcdn.webhooks.vendor")! }

    struct App: Decodable {
        let appID: String
        let section: Section?

        private struct Member: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Member.self)
            self.appID = try container.decode(String.self, forKey: Member(stringValue: "app_id"))
            let webhooks = Member(stringValue: "webhooks")
            guard let vendor = decoder.userInfo[WebhookSections.vendor] as? String, container.contains(webhooks),
                try !container.decodeNil(forKey: webhooks)
            else {
                self.section = nil
                return
            }
            let sections = try container.nestedContainer(keyedBy: Member.self, forKey: webhooks)
            self.section = try sections.decodeIfPresent(Section.self, forKey: Member(stringValue: vendor))
        }
    }

    let apps: [App]?
}
