import Foundation

/// One setting of `mockcdn serve`, declared once. Its flag, environment variable and config-file key all
/// derive from its name, and `--help`, the README's table and `openapi.yaml` show its default, bounds and
/// help; a test holds each of them to this table.
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

    /// snake_case: the config key under `server:`; the flag and the variable derive from it.
    public let name: String
    public let kind: Kind
    /// The default as users read it.
    public let defaultText: String
    public let help: String

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
    public static let config = ServeSetting(
        name: "config",
        kind: .path,
        defaultText: "none",
        help: "YAML file of apps, their keys and upload settings, and of these settings under `server:`."
    )
    public static let host = ServeSetting(
        name: "host",
        kind: .text(minimumLength: 1),
        defaultText: "127.0.0.1",
        help: "Address to bind; any non-loopback address makes the /_mockcdn routes need the admin token."
    )
    public static let port = ServeSetting(
        name: "port",
        kind: .integer(0...65535),
        defaultText: "8080",
        help: "Port to bind; 0 picks a free port, which the ready line names."
    )
    public static let dataDir = ServeSetting(
        name: "data_dir",
        kind: .path,
        defaultText: "none (in memory)",
        help: "Folder to persist objects and resized variants in, crash-safe."
    )
    public static let store = ServeSetting(
        name: "store",
        kind: .text(minimumLength: 1),
        defaultText: "memory, or the data dir",
        help: "s3://BUCKET[/PREFIX] keeps objects in an S3-compatible bucket that several instances share "
            + "(endpoint and keys from AWS_ENDPOINT_URL_S3, AWS_ACCESS_KEY_ID, ...); `memory` for the default."
    )
    public static let s3PathStyle = ServeSetting(
        name: "s3_path_style",
        kind: .choice(["auto", "true", "false"]),
        defaultText: "auto",
        help: "How an s3:// store addresses its bucket: true for https://ENDPOINT/BUCKET/key, false for "
            + "https://BUCKET.ENDPOINT/key; auto is path-style for a custom endpoint, virtual-hosted for AWS."
    )
    public static let s3Variants = ServeSetting(
        name: "s3_variants",
        kind: .choice(["false", "true"]),
        defaultText: "false",
        help: "With an s3:// store, true also keeps resized variants in the bucket under PREFIX/variants/, so a "
            + "variant one instance rendered serves every instance; each instance keeps its memory cache either way."
    )
    public static let publicURL = ServeSetting(
        name: "public_url",
        kind: .text(minimumLength: 1),
        defaultText: "the request's Host",
        help: "Base of the links MockCDN issues, http(s)://HOST[:PORT], when clients reach it under another name."
    )
    public static let logLevel = ServeSetting(
        name: "log_level",
        kind: .choice(["trace", "debug", "info", "notice", "warning", "error", "critical"]),
        defaultText: "info",
        help: "Least severe log level written to stderr; logs never hold a token, signature or secret."
    )
    public static let variantCacheMB = ServeSetting(
        name: "variant_cache_mb",
        kind: .integer(0...65536),
        defaultText: "64",
        help: "MiB of resized image variants kept (in memory, and on disk with a data dir); 0 renders every time."
    )
    public static let fixtures = ServeSetting(
        name: "fixtures",
        kind: .path,
        defaultText: "share/mockcdn/fixtures or Fixtures/media",
        help: "Folder of media preloaded under the default app at fixtures/{name}, and on reset; `none` for none."
    )
    public static let adminToken = ServeSetting(
        name: "admin_token",
        kind: .text(minimumLength: 16),
        defaultText: "generated off loopback",
        help: "Bearer token the /_mockcdn routes need on a non-loopback address; at least 16 characters."
    )
    public static let journalSize = ServeSetting(
        name: "journal_size",
        kind: .integer(1...100_000),
        defaultText: "1000",
        help: "Requests the journal keeps; the oldest goes first."
    )
    public static let idleTimeout = ServeSetting(
        name: "idle_timeout",
        kind: .integer(1...3600),
        defaultText: "35",
        help: "Seconds a connection may sit idle, take to send a request head, or wait between body bytes; "
            + "above the 30 s upload stall timeout, so a stalled presigned PUT hears its 408 first."
    )
    public static let maxConnections = ServeSetting(
        name: "max_connections",
        kind: .integer(1...1_000_000),
        defaultText: "descriptor limit - 128",
        help: "Connections served at once; more wait to be accepted."
    )
    public static let memoryStoreMB = ServeSetting(
        name: "memory_store_mb",
        kind: .integer(1...1_048_576),
        defaultText: "1024",
        help: "MiB the in-memory store holds, fixtures included; uploads past it answer 507."
    )

    /// Every setting, in the order `--help` and the README list them.
    public static let all: [ServeSetting] = [
        .config, .host, .port, .dataDir, .store, .s3PathStyle, .s3Variants, .publicURL, .logLevel, .variantCacheMB,
        .fixtures,
        .adminToken,
        .journalSize, .idleTimeout, .maxConnections, .memoryStoreMB,
    ]
}
