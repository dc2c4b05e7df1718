extension PostPolicy {
    /// One entry of a POST policy's `conditions`.
    ///
    /// Field names are matched without regard to case (`$Content-Type` covers a `content-type` field, as S3
    /// and ceph's s3-tests `case_insensitive_condition_fields` do); values, byte for byte.
    public enum Condition: Sendable, Equatable {
        /// `{"name": "value"}` or `["eq", "$name", "value"]`: the field must equal the value. `name` is as the
        /// policy wrote it: `$key` (a simple condition's name gets the `$`); without the `$` it fails, as on S3.
        case equals(name: String, value: String)
        /// `["starts-with", "$name", "prefix"]`: the field must start with the prefix; an empty prefix allows
        /// any value, but the field must be there. A `Content-Type` with commas is a list, each item tested.
        case startsWith(name: String, prefix: String)
        /// `["content-length-range", min, max]`: the file's length, bounds included.
        case contentLengthRange(ClosedRange<Int64>)
        /// A condition S3 accepts in a policy but no upload meets: a `content-length-range` whose bounds are
        /// strings that are not numbers. The text is the condition as S3 prints it.
        case unsatisfiable(String)

        /// Reads one entry of `conditions`.
        ///
        /// - Parameter json: the entry.
        /// - Throws: `PostPolicyRefusal.invalidPolicy` with S3's reason.
        init(_ json: PolicyJSON) throws(PostPolicyRefusal) {
            switch json {
            case .object(let members):
                // "Invalid Policy: Invalid Simple-Condition: Simple-Conditions must have exactly one property
                // specified." (LocalStack's `TestS3PresignedPost`, `{"bucket": B, "success_action_redirect": R}`).
                guard members.count == 1 else {
                    throw .invalidPolicy(
                        "Invalid Simple-Condition: Simple-Conditions must have exactly one property specified."
                    )
                }
                switch members[0].value {
                case .string(let value): self = .equals(name: "$" + members[0].name, value: value)
                // S3 answers a null with "Invalid JSON." and a number with "value must be a string."
                // (https://github.com/dwilkie/carrierwave_direct/issues/230,
                // https://github.com/toniopelo/modbox/issues/10).
                case .null: throw .invalidPolicy("Invalid JSON.")
                default: throw .invalidPolicy("Invalid Simple-Condition: value must be a string.")
                }
            case .array(let items):
                // https://stackoverflow.com/q/43431505 for the first; the rest of this case is versitygw's text.
                guard case .string(let operation) = items.first else {
                    throw .invalidPolicy("Invalid Condition: missing operation identifier.")
                }
                // s3-tests expect `StArTs-WiTh` to work.
                let shown = PostPolicyRefusal.printable(operation, limit: 64)
                switch operation.lowercased() {
                case "eq", "starts-with":
                    guard items.count == 3 else { throw .invalidPolicy("Invalid \(shown): wrong number of arguments.") }
                    guard case .string(let name) = items[1], case .string(let value) = items[2] else {
                        throw .invalidPolicy("Invalid JSON.")
                    }
                    self =
                        operation.lowercased() == "eq"
                        ? .equals(name: name, value: value) : .startsWith(name: name, prefix: value)
                case "content-length-range":
                    guard items.count == 3 else { throw .invalidPolicy("Invalid \(shown): wrong number of arguments.") }
                    self = try Self.lengthRange(items)
                default:
                    throw .invalidPolicy("Invalid Condition: unknown operation '\(shown)'.")
                }
            default:
                throw .invalidPolicy("Invalid condition test: must be a List or Object.")
            }
        }

        /// `["content-length-range", min, max]`. S3 takes integers and strings of digits (`"5"`, `"10"`); a
        /// fraction is "Invalid JSON." (https://repost.aws/questions/QUo27u4OYpTA-XvAWr72xeRg, `512.0`); other
        /// strings make a condition that fails (`["content-length-range", "test", "10"]` is 403 "Policy
        /// Condition failed", LocalStack's `TestS3PresignedPost`).
        private static func lengthRange(_ items: [PolicyJSON]) throws(PostPolicyRefusal) -> Condition {
            var bounds: [Int64] = []
            var readable = true
            for item in items.dropFirst() {
                switch item {
                case .integer(let value): bounds.append(value)
                case .string(let text):
                    if let value = Int64(text), text.utf8.allSatisfy({ (48...57).contains($0) }) {
                        bounds.append(value)
                    } else {
                        readable = false
                    }
                default: throw .invalidPolicy("Invalid JSON.")
                }
            }
            guard readable else { return .unsatisfiable(PolicyJSON.array(items).rendered) }
            // s3-tests expect 400 for `[-1, 0]`; S3's text for it is not recorded, so this one is MockCDN's.
            guard bounds[0] >= 0, bounds[0] <= bounds[1] else {
                throw .invalidPolicy("Invalid content-length-range: the bounds must be 0 or more, the first no larger.")
            }
            return .contentLengthRange(bounds[0]...bounds[1])
        }

        /// The condition as S3 prints it when it fails: a simple condition as `eq`, names as the policy spelled
        /// them, strings JSON-escaped (`["eq", "$Content-Disposition", "filename=\"test.png\""]`,
        /// https://stackoverflow.com/q/79055241).
        public var rendered: String {
            switch self {
            case .equals(let name, let value):
                PolicyJSON.array([.string("eq"), .string(name), .string(value)]).rendered
            case .startsWith(let name, let prefix):
                PolicyJSON.array([.string("starts-with"), .string(name), .string(prefix)]).rendered
            case .contentLengthRange(let range):
                PolicyJSON.array([
                    .string("content-length-range"), .integer(range.lowerBound), .integer(range.upperBound),
                ])
                .rendered
            case .unsatisfiable(let text): text
            }
        }

        /// The form field the condition tests, lower-cased and without its `$`; nil for a length range and for a
        /// name without the `$`, which tests no field.
        var field: String? {
            switch self {
            case .equals(let name, _), .startsWith(let name, _):
                name.hasPrefix("$") ? String(name.dropFirst()).lowercased() : nil
            case .contentLengthRange, .unsatisfiable: nil
            }
        }

        /// Whether `value` meets the condition; a length range always does here (the file is checked apart).
        func holds(for value: String?) -> Bool {
            switch self {
            case .equals(_, let expected):
                guard let value else { return false }
                return value.utf8.elementsEqual(expected.utf8)
            case .startsWith(_, let prefix):
                guard let value else { return false }
                // "Content-Types values for a starts-with condition that include commas are interpreted as
                // lists. Each value in the list must meet the condition" (AWS's POST Policy page).
                guard self.field == "content-type", value.contains(",") else {
                    return value.utf8.starts(with: prefix.utf8)
                }
                return value.split(separator: ",", omittingEmptySubsequences: false).allSatisfy {
                    $0.drop(while: { $0 == " " }).utf8.starts(with: prefix.utf8)
                }
            case .contentLengthRange: return true
            case .unsatisfiable: return false
            }
        }
    }

    /// The fields a form may carry without a condition: "Each form field that you specify in a form (except
    /// `x-amz-signature`, `file`, `policy`, and field names that have an `x-ignore-` prefix) must appear in the
    /// list of conditions", and SigV2's "(except AWSAccessKeyId, signature, file, policy, ...)". Lower-case.
    static let uncheckedFields: Set<String> = [
        "x-amz-signature", "file", "policy", "awsaccesskeyid", "signature",
    ]

    /// The checksum fields (`x-amz-checksum-algorithm`, `x-amz-checksum-crc32`, ...), which need no condition
    /// either: they only narrow what is stored, since the server checks the file against them. ceph's s3-tests
    /// (`test_post_object_upload_checksum`) expect S3 to take a policy that does not name them; a condition that
    /// does is still checked.
    static let checksumFieldPrefix = "x-amz-checksum-"

    /// Checks a form against the policy, as S3 does once the signature holds: the expiration, every condition
    /// in order, then that every field has a condition.
    ///
    /// - Parameters:
    ///   - fields: the form's fields before `file`, names as sent (matched without regard to case), values with
    ///     `${filename}` already expanded (`expandingFilename(_:filename:)`); a name sent twice is tested as its
    ///     values joined with `,`, as S3 documents.
    ///   - bucket: the bucket the form was posted to (the app's id); `$bucket` conditions test it.
    ///   - key: the object's key, expanded; `$key` conditions test it.
    ///   - now: the clock's Unix time.
    /// - Throws: `PostPolicyRefusal.expired` after the expiration second; `conditionFailed` naming the first
    ///   condition the form does not meet; `extraInputFields` naming the fields no condition covers.
    public func check(
        fields: [(name: String, value: String)],
        bucket: String,
        key: String,
        now: Int64
    ) throws(PostPolicyRefusal) {
        // "Invalid according to Policy: Policy expired." (LocalStack's `TestS3PresignedPost`).
        guard now <= self.expiration else { throw .expired(at: self.expiration) }
        var values: [String: [String]] = [:]
        for (name, value) in fields { values[name.lowercased(), default: []].append(value) }
        for condition in self.conditions {
            let value: String? =
                switch condition.field {
                case "bucket": bucket
                case "key": key
                case let field?: values[field]?.joined(separator: ",")
                case nil: nil
                }
            // "Invalid according to Policy: Policy Condition failed: [\"eq\", \"$success_action_redirect\", ...]"
            // (LocalStack's `TestS3PresignedPost`); a field the form lacks fails even `starts-with ""`
            // (https://github.com/waynehoover/s3_direct_upload/issues/29).
            guard condition.holds(for: value) else { throw .conditionFailed(condition.rendered) }
        }
        let covered = Set(self.conditions.compactMap(\.field))
        var extra: [String] = []
        for (name, _) in fields {
            let lowered = name.lowercased()
            guard !covered.contains(lowered), !Self.uncheckedFields.contains(lowered), !lowered.hasPrefix("x-ignore-"),
                !lowered.hasPrefix(Self.checksumFieldPrefix)
            else { continue }
            let shown = PostPolicyRefusal.printable(name, limit: 128)
            if !extra.contains(shown) { extra.append(shown) }
        }
        // "Invalid according to Policy: Extra input fields: name", the name as sent
        // (https://github.com/cloudreve/cloudreve/issues/959, https://stackoverflow.com/q/54014351).
        guard extra.isEmpty else { throw .extraInputFields(extra) }
    }

    /// Checks the file's length against `contentLengthRange`, bounds included (LocalStack's
    /// `TestS3PresignedPost` uploaded 5 and 10 bytes under `[5, 10]`). While the file streams in, the server may
    /// call it with the bytes received so far once they pass the upper bound.
    ///
    /// - Parameter length: the file's length in bytes.
    /// - Throws: `PostPolicyRefusal.entityTooLarge` or `entityTooSmall`, with S3's `ProposedSize` and
    ///   `MaxSizeAllowed` or `MinSizeAllowed` (https://github.com/CulturalMe/meteor-slingshot/issues/190).
    public func checkContentLength(_ length: Int64) throws(PostPolicyRefusal) {
        guard let range = self.contentLengthRange else { return }
        guard length <= range.upperBound else {
            throw .entityTooLarge(proposed: length, maximum: range.upperBound)
        }
        guard length >= range.lowerBound else {
            throw .entityTooSmall(proposed: length, minimum: range.lowerBound)
        }
    }
}
