import HTTPTypes
import MockCDNCore
import NIOCore

extension ObjectTags {
    /// The header a write names its object's tags in, URL-query encoded.
    static let header = HTTPField.Name("x-amz-tagging")!
    /// CopyObject's choice between the source's tags (`COPY`, the default) and the request's (`REPLACE`).
    static let directiveHeader = HTTPField.Name("x-amz-tagging-directive")!
    /// S3's bounds on an object's tags.
    static let maximumCount = 10
    static let maximumKeyLength = 128
    static let maximumValueLength = 256

    /// The bounds of a `Tagging` document (PutObjectTagging's body, a POST form's `tagging` field): room for
    /// more than 10 tags, so that 11 are refused as too many rather than as a document too big to read.
    static let documentLimits = XMLReader.Limits(maximumBytes: 64 * 1024, maximumElements: 1_000)

    /// The tags a write's `x-amz-tagging` header names, checked against S3's limits.
    ///
    /// - Parameter headers: the request's headers.
    /// - Returns: nil without the header; the tags (perhaps none, for an empty header) otherwise.
    /// - Throws: what `checked()` throws.
    static func requested(_ headers: HTTPFields) throws(S3Error) -> ObjectTags? {
        guard let value = headers[Self.header] else { return nil }
        return try ObjectTags(extraValue: value).checked()
    }

    /// The tags a `Tagging` document lists (`<Tagging><TagSet><Tag><Key/><Value/></Tag>...`), read off the
    /// event loop under `documentLimits`, and checked against S3's limits.
    ///
    /// - Parameter body: the document.
    /// - Returns: the tags, in the document's order.
    /// - Throws: 400 `MalformedXML` for a document that is no `Tagging` (a `Tag` without exactly one `Key` and
    ///   one `Value`), and what `checked()` throws.
    static func read(_ body: ByteBuffer) async throws -> ObjectTags {
        try ObjectTags(tagging: try await S3XML.tree(of: body, root: "Tagging", limits: Self.documentLimits))
            .checked()
    }

    /// The tags of a `Tagging` element, unchecked.
    ///
    /// - Throws: 400 `MalformedXML` for no `TagSet`, or a `Tag` without exactly one `Key` and one `Value`.
    init(tagging: XMLTree) throws(S3Error) {
        let sets = tagging.children(named: "TagSet")
        guard sets.count == 1 else { throw .malformedXML }
        var pairs: [(key: String, value: String)] = []
        for tag in sets[0].children(named: "Tag") {
            let keys = tag.children(named: "Key")
            let values = tag.children(named: "Value")
            guard keys.count == 1, values.count == 1 else { throw .malformedXML }
            pairs.append((key: keys[0].text, value: values[0].text))
        }
        self.init(pairs)
    }

    /// The tags, once they keep S3's rules: at most 10; keys of 1 to 128 Unicode characters and values of up to
    /// 256, of letters, digits, spaces and `+ - = . _ : / @`; keys unique and none starting `aws:` (S3's own).
    ///
    /// - Returns: the same tags.
    /// - Throws: 400 `BadRequest` for more than 10 (S3's code for it), 400 `InvalidTag` with S3's words for
    ///   any other rule broken.
    func checked() throws(S3Error) -> ObjectTags {
        guard self.pairs.count <= Self.maximumCount else { throw .tooManyTags }
        var seen = Set<String>()
        for (key, value) in self.pairs {
            guard key.unicodeScalars.count <= Self.maximumKeyLength else {
                throw .invalidTag("The TagKey you have provided is too long, max \(Self.maximumKeyLength)")
            }
            guard value.unicodeScalars.count <= Self.maximumValueLength else {
                throw .invalidTag("The TagValue you have provided is too long, max \(Self.maximumValueLength)")
            }
            guard !key.isEmpty, Self.isTagText(key) else {
                throw .invalidTag("The TagKey you have provided is invalid")
            }
            guard Self.isTagText(value) else { throw .invalidTag("The TagValue you have provided is invalid") }
            guard !key.hasPrefix("aws:") else { throw .invalidTag("Your TagKey cannot be prefixed with aws:") }
            guard seen.insert(key).inserted else {
                throw .invalidTag("Cannot provide multiple Tags with the same key")
            }
        }
        return self
    }

    /// Whether a key or value is made of what S3 takes in tags: letters, digits and spaces of any script, and
    /// `+ - = . _ : / @`.
    private static func isTagText(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .decimalNumber, .letterNumber, .otherNumber, .spaceSeparator, .lineSeparator, .paragraphSeparator,
                .nonspacingMark, .spacingMark, .enclosingMark:
                return true
            default:
                return "+-=._:/@".unicodeScalars.contains(scalar)
            }
        }
    }
}
