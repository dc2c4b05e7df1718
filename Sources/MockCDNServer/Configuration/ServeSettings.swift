import Foundation
import MockCDNCore

/// What `mockcdn serve` was told by one source (flags, `MOCKCDN_*` variables or the config file's
/// `server:` section), or by several merged: each value as text, with where it came from for messages.
/// `ServerConfiguration.resolve` checks the values against `ServeSetting` and applies them.
public struct ServeSettings: Sendable, Equatable {
    /// A value and the place it was given (`--port`, `MOCKCDN_PORT`, `FILE: server.port`).
    public struct Value: Sendable, Equatable {
        public var text: String
        public var source: String
    }

    private var values: [ServeSetting: Value] = [:]

    /// Values given on the command line; nil ones are unset.
    public init(flags: [ServeSetting: String?] = [:]) {
        for case (let setting, let text?) in flags { self.values[setting] = Value(text: text, source: setting.flag) }
    }

    /// The settings `MOCKCDN_*` variables give; an empty variable counts as unset.
    public init(environment: [String: String]) {
        for setting in ServeSetting.all {
            guard let text = environment[setting.environmentVariable], !text.isEmpty else { continue }
            self.values[setting] = Value(text: text, source: setting.environmentVariable)
        }
    }

    init(values: [ServeSetting: Value]) {
        self.values = values
    }

    public subscript(_ setting: ServeSetting) -> Value? { self.values[setting] }

    /// Each setting from `self` when set, else from `other`.
    public func over(_ other: ServeSettings) -> ServeSettings {
        ServeSettings(values: self.values.merging(other.values) { mine, _ in mine })
    }
}

extension ServerConfiguration {
    /// The configuration `mockcdn serve` runs: flags over environment over the config file over defaults.
    ///
    /// - Parameters:
    ///   - flags: what the command line set.
    ///   - environment: the process environment (`MOCKCDN_*`).
    /// - Returns: the configuration.
    /// - Throws: `MockCDNError.invalidConfiguration` naming the bad setting.
    public static func resolve(flags: ServeSettings, environment: [String: String]) throws -> ServerConfiguration {
        let early = flags.over(ServeSettings(environment: environment))
        let file = try early[.config].map { try ConfigurationFile.settings(from: $0.text) } ?? ServeSettings()
        let settings = early.over(file)
        var configuration = ServerConfiguration(
            apps: try early[.config].map { try ConfigurationFile.apps(from: $0.text) } ?? [.demo]
        )
        configuration.notifications =
            try early[.config].map { try ConfigurationFile.notifications(from: $0.text) } ?? [:]
        configuration.configurationFile = early[.config]?.text
        let resolution = ServeSetting.Resolution(environment: environment, settings: settings)
        for setting in ServeSetting.all {
            try setting.apply?(&configuration, try settings.value(setting), resolution)
        }
        return configuration
    }
}

extension ServeSettings {
    /// The setting's value, checked against its kind; nil when unset.
    ///
    /// - Throws: `MockCDNError.invalidConfiguration` naming where the value came from and the rule.
    func value(_ setting: ServeSetting) throws -> ServeSetting.Value? {
        if case .integer = setting.kind { return try self.integer(setting).map(ServeSetting.Value.integer) }
        return try self.text(setting).map(ServeSetting.Value.text)
    }

    /// The setting's text, checked against its kind (a choice comes back lowercased).
    ///
    /// - Throws: `MockCDNError.invalidConfiguration` naming where the value came from and the rule.
    func text(_ setting: ServeSetting) throws -> String? {
        guard let value = self[setting] else { return nil }
        switch setting.kind {
        case .text(let minimumLength):
            guard value.text.count >= minimumLength else {
                let unit = minimumLength == 1 ? "character" : "characters"
                throw MockCDNError.invalidConfiguration("\(value.source) must be at least \(minimumLength) \(unit)")
            }
        case .path:
            break
        case .integer:
            _ = try self.integer(setting)
        case .choice(let words):
            guard words.contains(value.text.lowercased()) else {
                throw MockCDNError.invalidConfiguration(
                    "\(value.source) must be one of \(words.joined(separator: ", "))"
                )
            }
            return value.text.lowercased()
        }
        return value.text
    }

    /// The setting's integer, within its bounds.
    ///
    /// - Throws: `MockCDNError.invalidConfiguration` naming where the value came from and the bounds.
    func integer(_ setting: ServeSetting) throws -> Int? {
        guard let value = self[setting] else { return nil }
        guard case .integer(let range) = setting.kind else { return nil }
        guard let number = Int(value.text) else {
            throw MockCDNError.invalidConfiguration("\(value.source) must be an integer")
        }
        guard range.contains(number) else {
            throw MockCDNError.invalidConfiguration(
                "\(value.source) must be \(range.lowerBound)...\(range.upperBound)"
            )
        }
        return number
    }
}
