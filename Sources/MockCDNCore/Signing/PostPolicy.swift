/// An S3 POST policy: what a browser upload (POST Object, the form boto3's `generate_presigned_post` makes)
/// may contain, signed by the app's backend. This file reads the policy; `PostPolicy+Conditions.swift` checks a
/// form against it and `PostPolicy+Signature.swift` checks the form's SigV4 or SigV2 signature, both through
/// `verify(fields:bucket:key:credentials:now:)`.
///
/// Sources. AWS documents the language in "POST Policy"
/// (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html) and the signature in
/// "Example: Browser-Based Upload using HTTP POST"
/// (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-post-example.html). S3's answers are mostly not
/// documented; the messages here are the ones clients recorded from S3: LocalStack's POST tests validated
/// against S3 (`tests/aws/services/s3/test_s3.py`, `TestS3PresignedPost`) and error bodies pasted into issues
/// (cited where each is used). Where no recording exists, the message is versitygw's or MockCDN's own, and
/// says so.
public struct PostPolicy: Sendable, Equatable {
    /// The last Unix second the policy holds: its `expiration`, any fraction of a second dropped. AWS: "not
    /// valid after" that time.
    public let expiration: Int64
    /// The conditions, in the policy's order.
    public let conditions: [Condition]
    /// The lengths the file may have: every `content-length-range` condition at once, bounds included; nil
    /// when the policy has none. The server enforces it while the file streams in (`checkContentLength(_:)`).
    public let contentLengthRange: ClosedRange<Int64>?

    /// S3's limit on a form's fields before the file, 20 KiB: "The form data and boundaries (excluding the
    /// contents of the file) cannot exceed 20KB", answered with `MaxPostPreDataLengthExceeded` and
    /// `<MaxPostPreDataLengthBytes>20480</MaxPostPreDataLengthBytes>`
    /// (https://github.com/waynehoover/s3_direct_upload/issues/45). The policy is one of those fields, so it
    /// is bounded by it too.
    public static let maximumFormLength = 20_480

    /// Makes a policy from its parts; `contentLengthRange` is worked out from the conditions.
    ///
    /// - Parameters:
    ///   - expiration: the last Unix second it holds.
    ///   - conditions: the conditions, in order, their length ranges overlapping (`parse(_:)` checks).
    init(expiration: Int64, conditions: [Condition]) {
        self.expiration = expiration
        self.conditions = conditions
        var range: ClosedRange<Int64>?
        for case .contentLengthRange(let next) in conditions {
            range = range.map { $0.clamped(to: next) } ?? next
        }
        self.contentLengthRange = range
    }

    /// Reads the `Policy` field: base64 of a UTF-8 JSON object with `expiration` and `conditions`, nothing else.
    ///
    /// - Parameter policy: the field's value, as sent (at most `maximumFormLength` bytes).
    /// - Returns: the policy.
    /// - Throws: `PostPolicyRefusal.formTooLarge` for a policy over the bound; `invalidPolicy` (400
    ///   `InvalidPolicyDocument`) with S3's reason for anything it cannot read.
    public static func parse(_ policy: String) throws(PostPolicyRefusal) -> PostPolicy {
        guard policy.utf8.count <= maximumFormLength else { throw .formTooLarge }
        // S3's text is not recorded for this one; versitygw answers it so.
        guard let bytes = Base64.decode(policy, .standard) else { throw .invalidPolicy("invalid Base64 encoding.") }
        // "Invalid Policy: Invalid JSON." (https://github.com/tpyo/amazon-s3-php-class/issues/53).
        guard case .object(let members) = PolicyJSON.parse(bytes) else { throw .invalidPolicy("Invalid JSON.") }
        var expirationValue: PolicyJSON?
        var conditionsValue: PolicyJSON?
        for (name, value) in members {
            // The names are case-sensitive: ceph's s3-tests expect 400 for `EXPIRATION` and `CONDITIONS`.
            switch name {
            case "expiration" where expirationValue == nil: expirationValue = value
            case "conditions" where conditionsValue == nil: conditionsValue = value
            case "expiration", "conditions": throw .invalidPolicy("Invalid JSON.")
            // S3 names the first member it does not know, lower-cased ("Invalid Policy: Unexpected:
            // 'statement'", https://stackoverflow.com/q/31169349).
            default:
                throw .invalidPolicy("Unexpected: '\(PostPolicyRefusal.printable(name.lowercased(), limit: 64))'")
            }
        }
        // The next three are versitygw's texts: S3's are not recorded.
        guard let expirationValue else { throw .invalidPolicy("Policy missing expiration.") }
        guard let conditionsValue else { throw .invalidPolicy("Policy missing conditions.") }
        guard case .array(let items) = conditionsValue else {
            throw .invalidPolicy("Invalid 'conditions' value: must be a List.")
        }
        // "Invalid Policy: Invalid 'expiration' value: '2011-09-13T07:52:58+02:00'"
        // (https://github.com/dwilkie/carrierwave_direct/issues/2).
        guard case .string(let text) = expirationValue, let expiration = AmzDate.parseISO8601(text) else {
            let shown = if case .string(let text) = expirationValue { text } else { expirationValue.rendered }
            throw .invalidPolicy("Invalid 'expiration' value: '\(PostPolicyRefusal.printable(shown, limit: 64))'")
        }
        var conditions: [Condition] = []
        for item in items { conditions.append(try Condition(item)) }
        // Two ranges no length meets at once would refuse every file; S3's answer to such a policy is not
        // recorded, so MockCDN refuses the policy, in its own words.
        let ranges = conditions.compactMap { if case .contentLengthRange(let range) = $0 { range } else { nil } }
        guard ranges.allSatisfy({ range in ranges.allSatisfy { $0.overlaps(range) } }) else {
            throw .invalidPolicy("Invalid content-length-range: no length is within every range.")
        }
        return PostPolicy(expiration: expiration, conditions: conditions)
    }

    /// Replaces `${filename}` in a form field's value with the name of the file the form sent, as S3 does before
    /// it checks the policy ("All variables within the form are expanded prior to validating the POST policy").
    /// S3 uses the text after the last `/` or `\` of the name. A file part without a `filename` parameter leaves
    /// the variable as it is: S3 stored such a key literally (`file-as-field-${filename}` in LocalStack's
    /// `TestS3PresignedPost`, validated against S3), where `filename=""` makes it empty.
    ///
    /// - Parameters:
    ///   - value: the field's value, e.g. the `key` field `uploads/${filename}`.
    ///   - filename: the file part's `filename` parameter, nil when it has none.
    /// - Returns: the value with every `${filename}` replaced.
    public static func expandingFilename(_ value: String, filename: String?) -> String {
        guard let filename, value.contains("${filename}") else { return value }
        let base = filename.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "\\" }.last.map(String.init)
        return value.replacing("${filename}", with: base ?? "")
    }
}
