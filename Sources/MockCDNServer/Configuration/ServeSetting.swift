import Foundation
import Logging
import MockCDNCore
import MockCDNS3

/// One setting of `mockcdn serve`, declared once: its name, kind and bounds, typed default, help, and where
/// its value goes in a `ServerConfiguration`. Its flag, environment variable and config-file key derive from
/// its name; `--help`, the config loader, `ServerConfiguration.resolve` and `ServerConfiguration`'s own
/// defaults all read the declaration, and a test holds the README's table and `openapi.yaml` to it. Adding a
/// setting is one declaration in `ServeSetting.all` plus the property it sets.
public struct ServeSetting: Sendable, Hashable, CustomStringConvertible {
    /// What a value must be.
    public enum Kind: Sendable, Hashable {
        /// Any text of at least `minimumLength` characters.
        case text(minimumLength: Int)
        /// A path; in the config file, relative to the file's folder.
        case path
        /// An integer within the bounds.
        case integer(ClosedRange<Int>)
        /// One of the words, in any case.
        case choice([String])
    }

    /// A value checked against the setting's kind.
    public enum Value: Sendable, Hashable {
        case text(String)
        case integer(Int)
    }

    /// snake_case: the config key under `server:`; the flag and the variable derive from it.
    public let name: String
    public let kind: Kind
    /// The default as users read it.
    public let defaultText: String
    public let help: String
    /// The default a new `ServerConfiguration` starts from; nil when the setting has none there (unset, or
    /// worked out when the server starts, as the fixtures folder is).
    let defaultValue: Value?
    /// Puts the setting's value into a configuration; nil when no source set it. Nil for `--config`, which is
    /// read before the others.
    let apply: (@Sendable (inout ServerConfiguration, Value?, Resolution) throws -> Void)?

    /// What a setting's `apply` may read besides its own value: the environment (an S3 store's keys) and the
    /// other settings (a store's addressing style), with where each came from for messages.
    struct Resolution {
        let environment: [String: String]
        let settings: ServeSettings
    }

    public static func == (lhs: ServeSetting, rhs: ServeSetting) -> Bool { lhs.name == rhs.name }

    public func hash(into hasher: inout Hasher) { hasher.combine(self.name) }

    /// `--data-dir`.
    public var flag: String { "--" + self.name.replacingOccurrences(of: "_", with: "-") }
    /// `MOCKCDN_DATA_DIR`.
    public var environmentVariable: String { "MOCKCDN_" + self.name.uppercased() }
    /// `server.data_dir`; nil for `--config`, which the file cannot name.
    public var configKey: String? { self == .config ? nil : "server." + self.name }
    /// `0-65,535` for an integer setting, else nil.
    public var boundsText: String? {
        guard case .integer(let range) = self.kind else { return nil }
        return "\(Self.grouped(range.lowerBound))-\(Self.grouped(range.upperBound))"
    }

    public var description: String { self.flag }

    /// 65535 as `65,535`.
    private static func grouped(_ value: Int) -> String {
        var digits = String(value.magnitude)
        var index = digits.endIndex
        while digits.distance(from: digits.startIndex, to: index) > 3 {
            index = digits.index(index, offsetBy: -3)
            digits.insert(",", at: index)
        }
        return (value < 0 ? "-" : "") + digits
    }
}

extension ServeSetting {
    /// An integer setting with a default, stored scaled (MiB as bytes) by `set`.
    static func integer(
        _ name: String,
        _ range: ClosedRange<Int>,
        default value: Int,
        help: String,
        set: @escaping @Sendable (inout ServerConfiguration, Int) -> Void
    ) -> ServeSetting {
        ServeSetting(
            name: name,
            kind: .integer(range),
            defaultText: String(value),
            help: help,
            defaultValue: .integer(value)
        ) { configuration, value, _ in
            if case .integer(let number) = value { set(&configuration, number) }
        }
    }

    /// A setting whose text (a choice lowercased) `set` stores; `value` is its default, if it has one.
    static func text(
        _ name: String,
        _ kind: Kind,
        default value: String? = nil,
        defaultText: String? = nil,
        help: String,
        set: @escaping @Sendable (inout ServerConfiguration, String) throws -> Void
    ) -> ServeSetting {
        ServeSetting(
            name: name,
            kind: kind,
            defaultText: defaultText ?? value ?? "none",
            help: help,
            defaultValue: value.map(Value.text)
        ) { configuration, value, _ in
            if case .text(let text) = value { try set(&configuration, text) }
        }
    }

    public static let config: ServeSetting = ServeSetting(
        name: "config",
        kind: .path,
        defaultText: "none",
        help: "YAML file of apps, their keys and upload settings, and of these settings under `server:`.",
        defaultValue: nil,
        apply: nil
    )
    public static let host: ServeSetting = ServeSetting.text(
        "host",
        .text(minimumLength: 1),
        default: "127.0.0.1",
        help: "Address to bind; any non-loopback address makes the /_mockcdn routes need the admin token."
    ) { $0.host = $1 }
    public static let port: ServeSetting = ServeSetting.integer(
        "port",
        0...65535,
        default: 8080,
        help: "Port to bind; 0 picks a free port, which the ready line names."
    ) { $0.port = $1 }
    public static let dataDir: ServeSetting = ServeSetting.text(
        "data_dir",
        .path,
        defaultText: "none (in memory)",
        help: "Folder to persist objects and resized variants in, crash-safe."
    ) { $0.dataDirectory = $1 }
    public static let store: ServeSetting = ServeSetting(
        name: "store",
        kind: .text(minimumLength: 1),
        defaultText: "memory, or the data dir",
        help: "s3://BUCKET[/PREFIX] keeps objects in an S3-compatible bucket that several instances share "
            + "(endpoint and keys from AWS_ENDPOINT_URL_S3, AWS_ACCESS_KEY_ID, ...); `memory` for the default.",
        defaultValue: nil
    ) { configuration, value, resolution in
        guard case .text(let store) = value, store != "memory" else { return }
        let style = try resolution.settings.text(.s3PathStyle)
        do {
            configuration.s3Store = try S3Location(
                store,
                environment: resolution.environment,
                pathStyle: style == "true" ? true : style == "false" ? false : nil
            )
        } catch let error as MockCDNError {
            throw MockCDNError.invalidConfiguration("\(resolution.settings[.store]!.source): \(error.detail)")
        }
    }
    /// Read by `store`'s `apply`.
    public static let s3PathStyle: ServeSetting = ServeSetting(
        name: "s3_path_style",
        kind: .choice(["auto", "true", "false"]),
        defaultText: "auto",
        help: "How an s3:// store addresses its bucket: true for https://ENDPOINT/BUCKET/key, false for "
            + "https://BUCKET.ENDPOINT/key; auto is path-style for a custom endpoint, virtual-hosted for AWS.",
        defaultValue: nil
    ) { _, _, _ in }
    public static let s3Variants: ServeSetting = ServeSetting(
        name: "s3_variants",
        kind: .choice(["false", "true"]),
        defaultText: "false",
        help: "With an s3:// store, true also keeps resized variants in the bucket under PREFIX/variants/, so a "
            + "variant one instance rendered serves every instance; each instance keeps its memory cache either way.",
        defaultValue: .text("false")
    ) { configuration, value, resolution in
        configuration.s3Variants = value == .text("true")
        // Without a bucket there is nowhere to share variants: say so rather than ignore the setting.
        if configuration.s3Variants, configuration.s3Store == nil {
            throw MockCDNError.invalidConfiguration(
                "\(resolution.settings[.s3Variants]!.source) needs an s3:// --store"
            )
        }
    }
    public static let s3MetadataTTL: ServeSetting = ServeSetting.integer(
        "s3_metadata_ttl_ms",
        0...60_000,
        default: 1000,
        help: "With an s3:// store, milliseconds an object's metadata is trusted once read, so a read is one "
            + "request to the bucket; HEAD, 304 and 412 may be that stale after another instance changed the "
            + "object, bytes never are. 0 reads the metadata at every read."
    ) { $0.s3MetadataStaleness = .milliseconds($1) }
    public static let publicURL: ServeSetting = ServeSetting.text(
        "public_url",
        .text(minimumLength: 1),
        defaultText: "the request's Host",
        help: "Base of the links MockCDN issues, http(s)://HOST[:PORT], when clients reach it under another name."
    ) { $0.publicURL = $1 }
    public static let tlsCertificate: ServeSetting = ServeSetting.text(
        "tls_certificate",
        .path,
        defaultText: "none (plain HTTP)",
        help: "PEM certificate chain to serve HTTPS with, with --tls-key: S3 clients send aws-chunked bodies over it."
    ) { $0.tlsCertificatePath = $1 }
    public static let tlsKey: ServeSetting = ServeSetting.text(
        "tls_key",
        .path,
        defaultText: "none",
        help: "PEM private key of --tls-certificate."
    ) { $0.tlsKeyPath = $1 }
    public static let logLevel: ServeSetting = ServeSetting.text(
        "log_level",
        .choice(Logger.Level.allCases.map(\.rawValue)),
        default: "info",
        help: "Least severe log level written to stderr; logs never hold a token, signature or secret."
    ) { $0.logLevel = Logger.Level(rawValue: $1)! }
    public static let variantCacheMB: ServeSetting = ServeSetting.integer(
        "variant_cache_mb",
        0...65536,
        default: 64,
        help: "MiB of resized image variants kept (in memory, and on disk with a data dir); 0 renders every time."
    ) { $0.variantCacheBytes = $1 * mebibyte }
    public static let fixtures: ServeSetting = ServeSetting(
        name: "fixtures",
        kind: .path,
        defaultText: "share/mockcdn/fixtures or Fixtures/media",
        help: "Folder of media preloaded under the default app at fixtures/{name}, and on reset; `none` for none.",
        defaultValue: nil
    ) { configuration, value, _ in
        // Unset: the installed folder, or the checkout's; `none` turns preloading off.
        guard case .text(let folder) = value else {
            configuration.fixturesDirectory = InstallLayout.defaultFixturesDirectory
            return
        }
        configuration.fixturesDirectory = folder == "none" ? nil : folder
    }
    public static let adminToken: ServeSetting = ServeSetting.text(
        "admin_token",
        .text(minimumLength: 16),
        defaultText: "generated off loopback",
        help: "Bearer token the /_mockcdn routes need on a non-loopback address; at least 16 characters."
    ) { $0.adminToken = $1 }
    public static let journalSize: ServeSetting = ServeSetting.integer(
        "journal_size",
        1...1_000_000,
        default: 1000,
        help: "Requests the journal keeps; the oldest goes first."
    ) { $0.journalCapacity = $1 }
    public static let credentialCacheSize: ServeSetting = ServeSetting.integer(
        "credential_cache_size",
        4...1_000_000,
        default: 4096,
        help: "Verified read credentials (FAT, SigV4, CloudFront) remembered, judged again by the clock at each "
            + "use; the least recently used go first."
    ) { $0.credentialCacheCapacity = $1 }
    public static let idleTimeout: ServeSetting = ServeSetting.integer(
        "idle_timeout",
        1...3600,
        default: 35,
        help: "Seconds a connection may sit idle, take to send a request head, or wait between body bytes; "
            + "above the 30 s upload stall timeout, so a stalled presigned PUT hears its 408 first."
    ) { $0.idleTimeoutSeconds = $1 }
    public static let keepAliveAfter: ServeSetting = ServeSetting.integer(
        "keepalive_after",
        0...600,
        default: 10,
        help: "Seconds a CompleteMultipartUpload may join its parts before its 200 goes out; a space then follows "
            + "every so many seconds (at least 1) until its result or its error, as S3 keeps it alive; 0: at once."
    ) { $0.keepAliveAfterSeconds = $1 }
    public static let maxConnections: ServeSetting = ServeSetting(
        name: "max_connections",
        kind: .integer(1...1_000_000),
        defaultText: "descriptor limit - 128",
        help: "Connections served at once; more wait to be accepted.",
        defaultValue: nil
    ) { configuration, value, _ in
        if case .integer(let number) = value { configuration.maximumConnections = number }
    }
    public static let memoryStoreMB: ServeSetting = ServeSetting.integer(
        "memory_store_mb",
        1...1_048_576,
        default: 1024,
        help: "MiB the in-memory store holds, fixtures included; uploads past it answer 507."
    ) { $0.memoryStoreBytes = $1 * mebibyte }
    public static let fastReads: ServeSetting = ServeSetting(
        name: "fast_reads",
        kind: .choice(["true", "false"]),
        defaultText: "true",
        help: "true answers a plain read of an object (or a cached variant) held in memory, whose credential holds, on "
            + "the connection's "
            + "event loop, with the very answer, journal entry and counts of the route; false sends every read "
            + "through the router.",
        defaultValue: .text("true")
    ) { configuration, value, _ in
        configuration.fastReads = value != .text("false")
    }

    /// Every setting, in the order `--help` and the README list them (and `resolve` applies them: `store`
    /// before `s3_variants`, which needs it).
    public static let all: [ServeSetting] = [
        .config, .host, .port, .dataDir, .store, .s3PathStyle, .s3Variants, .s3MetadataTTL, .publicURL,
        .tlsCertificate, .tlsKey,
        .logLevel, .variantCacheMB,
        .fixtures,
        .adminToken,
        .journalSize, .credentialCacheSize, .idleTimeout, .keepAliveAfter, .maxConnections, .memoryStoreMB, .fastReads,
    ]
}

/// 1 MiB, the unit of the `_mb` settings.
private let mebibyte = 1024 * 1024
