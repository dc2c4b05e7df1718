import Foundation

/// A CloudFront policy statement: one resource (with `*` wildcards) and its conditions.
public struct CloudFrontPolicy: Sendable, Equatable {
    public var resource: String
    /// Requests must come before this Unix time.
    public var dateLessThan: Int64
    /// Requests must come at or after this Unix time, when set.
    public var dateGreaterThan: Int64?
    /// Requests must come from this address or CIDR block, when set.
    public var sourceIP: String?

    /// The most policy bytes accepted from a client.
    public static let maximumLength = 8192

    public init(resource: String, dateLessThan: Int64, dateGreaterThan: Int64? = nil, sourceIP: String? = nil) {
        self.resource = resource
        self.dateLessThan = dateLessThan
        self.dateGreaterThan = dateGreaterThan
        self.sourceIP = sourceIP
    }

    /// The exact policy text a canned-policy signature covers (AWS builds it without white space).
    ///
    /// - Parameters:
    ///   - resource: the URL without the signing parameters.
    ///   - expires: the `Expires` value as it appears in the URL.
    /// - Returns: the JSON text.
    public static func cannedJSON(resource: String, expires: some StringProtocol) -> String {
        #"{"Statement":[{"Resource":"\#(jsonEscaped(resource))","Condition":{"DateLessThan":{"AWS:EpochTime":\#(expires)}}}]}"#
    }

    /// The policy as JSON, in the member order botocore's CloudFrontSigner writes.
    public var json: String {
        var conditions = [#""DateLessThan":{"AWS:EpochTime":\#(self.dateLessThan)}"#]
        if let sourceIP { conditions.append(#""IpAddress":{"AWS:SourceIp":"\#(Self.jsonEscaped(sourceIP))"}"#) }
        if let dateGreaterThan { conditions.append(#""DateGreaterThan":{"AWS:EpochTime":\#(dateGreaterThan)}"#) }
        return
            #"{"Statement":[{"Resource":"\#(Self.jsonEscaped(self.resource))","Condition":{\#(conditions.joined(separator: ","))}}]}"#
    }

    /// Reads a custom policy.
    ///
    /// - Parameter bytes: the decoded `Policy` parameter.
    /// - Returns: the first statement.
    /// - Throws: `AccessDenied.malformedPolicy` for anything but one statement with a resource and a
    ///   numeric `DateLessThan`.
    public static func parse(_ bytes: [UInt8]) throws(AccessDenied) -> CloudFrontPolicy {
        guard bytes.count <= maximumLength,
            let root = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let statements = root["Statement"] as? [[String: Any]], statements.count == 1,
            let resource = statements[0]["Resource"] as? String,
            let condition = statements[0]["Condition"] as? [String: Any],
            let dateLessThan = epoch(condition["DateLessThan"])
        else { throw .malformedPolicy }
        var policy = CloudFrontPolicy(resource: resource, dateLessThan: dateLessThan)
        if let greater = condition["DateGreaterThan"] {
            guard let value = epoch(greater) else { throw .malformedPolicy }
            policy.dateGreaterThan = value
        }
        if let address = condition["IpAddress"] {
            guard let source = (address as? [String: Any])?["AWS:SourceIp"] as? String else { throw .malformedPolicy }
            policy.sourceIP = source
        }
        return policy
    }

    /// True when `url` is covered by the resource pattern (`*` matches any run of characters, `/` and `?`
    /// included, as in CloudFront).
    ///
    /// - Parameter url: the full request URL without the signing parameters.
    /// - Returns: whether it matches.
    public func covers(_ url: String) -> Bool {
        Glob(self.resource.utf8).matches(Array(url.utf8))
    }

    /// True when `address` (IPv4 dotted quad) lies inside `sourceIP` (an address or a CIDR block); policies
    /// without the condition allow every address.
    ///
    /// - Parameter address: the client's address.
    /// - Returns: whether it is allowed.
    public func allows(address: String?) -> Bool {
        guard let sourceIP else { return true }
        guard let address, let client = Self.ipv4(address) else { return false }
        let parts = sourceIP.split(separator: "/", maxSplits: 1)
        guard let network = Self.ipv4(String(parts[0])) else { return false }
        let prefix = parts.count == 2 ? Int(parts[1]) ?? -1 : 32
        guard (0...32).contains(prefix) else { return false }
        let mask: UInt32 = prefix == 0 ? 0 : ~UInt32(0) << (32 - prefix)
        return client & mask == network & mask
    }

    // MARK: - Helpers

    private static func epoch(_ value: Any?) -> Int64? {
        ((value as? [String: Any])?["AWS:EpochTime"] as? NSNumber)?.int64Value
    }

    private static func ipv4(_ text: String) -> UInt32? {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return nil }
        var value: UInt32 = 0
        for octet in octets {
            guard octet.count <= 3, let number = UInt8(octet) else { return nil }
            value = value << 8 | UInt32(number)
        }
        return value
    }

    static func jsonEscaped(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value > 0x7e:
                // Python's json.dumps (botocore) escapes every non-ASCII character the same way.
                for unit in String(scalar).utf16 { escaped += String(format: "\\u%04x", unit) }
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
