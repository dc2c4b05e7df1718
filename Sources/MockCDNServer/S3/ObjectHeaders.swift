import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore

/// The HTTP headers an S3 PUT stores with an object and every read gives back: user metadata
/// (`x-amz-meta-*`), `Cache-Control`, `Content-Disposition`, `Content-Encoding`, `Content-Language` and
/// `Expires`, and the object's checksum. They live in the object's extras under `header:` and `checksum:`,
/// which `/_mockcdn/objects` shows.
enum ObjectHeaders {
    /// The headers kept as sent, besides user metadata.
    static let stored: [HTTPField.Name] = [
        .cacheControl, .contentDisposition, .contentEncoding, .contentLanguage, .expires,
    ]
    private static let storedNames = Set(Self.stored.map(\.canonicalName))
    static let userMetadataPrefix = "x-amz-meta-"
    /// S3's bound on user metadata: names and values together, in UTF-8 bytes.
    static let maximumUserMetadataBytes = 2048

    private static let headerExtra = "header:"
    private static let checksumExtra = "checksum:"

    /// What a PUT asks to be stored with its object, as extras.
    ///
    /// - Parameter request: the PUT (or a copy's replacement headers).
    /// - Returns: the extras, by `header:` and the lower-case header name.
    /// - Throws: 400 `MetadataTooLarge` past S3's 2 KB of user metadata.
    static func extras(from request: Request) throws -> [String: String] {
        try Self.extras(fields: request.headers.map { (name: $0.name.canonicalName, value: $0.value) })
    }

    /// What an upload asks to be stored with its object, from its (name, value) pairs: a PUT's headers, or
    /// a POST form's fields, which S3 takes for the same headers. Names match without regard to case; a name
    /// that could not be sent back as a header is left out.
    ///
    /// - Parameter fields: the pairs, in order (a name given twice keeps its last value).
    /// - Returns: the extras, by `header:` and the lower-case header name.
    /// - Throws: 400 `MetadataTooLarge` past S3's 2 KB of user metadata.
    static func extras(fields: some Sequence<(name: String, value: String)>) throws -> [String: String] {
        var extras: [String: String] = [:]
        var userBytes = 0
        for (fieldName, fieldValue) in fields {
            let name = fieldName.lowercased()
            if name.hasPrefix(Self.userMetadataPrefix) {
                guard HTTPField.Name(name) != nil else { continue }
                // Kept as text: RFC 2047 encoded-words decoded, as S3 stores them (`EncodedWords`).
                let value = EncodedWords.decode(fieldValue)
                userBytes += name.utf8.count - Self.userMetadataPrefix.utf8.count + value.utf8.count
                extras[Self.headerExtra + name] = value
            } else if Self.storedNames.contains(name) {
                var value = fieldValue
                if name == HTTPField.Name.contentEncoding.canonicalName {
                    value = Self.objectEncoding(value)
                    if value.isEmpty { continue }
                }
                extras[Self.headerExtra + name] = value
            }
        }
        guard userBytes <= Self.maximumUserMetadataBytes else {
            throw S3Error(
                status: .badRequest,
                code: "MetadataTooLarge",
                message: "Your metadata headers exceed the maximum allowed metadata size.",
                details: [
                    ("Size", String(userBytes)), ("MaxSizeAllowed", String(Self.maximumUserMetadataBytes)),
                ]
            )
        }
        return extras
    }

    /// A PUT's `Content-Encoding` as the object keeps it: as sent (`deflate, gzip` stays `deflate, gzip`, as S3
    /// gives it back), less `aws-chunked`, which names the request's framing, not the object's encoding.
    ///
    /// - Parameter value: the header's value.
    /// - Returns: the value to store; empty when nothing but the framing was named.
    static func objectEncoding(_ value: String) -> String {
        let codings = value.split(separator: ",", omittingEmptySubsequences: false)
        let framing = { (coding: Substring) in
            coding.trimmingCharacters(in: .whitespaces).caseInsensitiveCompare("aws-chunked") == .orderedSame
        }
        guard codings.contains(where: framing) else { return value }
        return codings.filter { !framing($0) && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .joined(separator: ",").trimmingCharacters(in: .whitespaces)
    }

    /// Whether an extra is one of the stored headers (which a copy's `REPLACE` replaces).
    static func isStored(_ extra: String) -> Bool {
        extra.hasPrefix(Self.headerExtra)
    }

    /// The stored headers of an object, for its reads. A user metadata value past ASCII goes out in RFC 2047
    /// encoded-words, as S3 sends it (`=?UTF-8?Q?Hello_World=C3=A9?=`): a header's bytes are read as Latin-1
    /// by botocore and others, so raw UTF-8 would reach them garbled. An object with tags says how many
    /// (`x-amz-tagging-count`), as S3's GetObject and HeadObject do.
    static func headers(of metadata: ObjectMetadata) -> HTTPFields {
        var headers = HTTPFields()
        let tags = ObjectTags(of: metadata).pairs.count
        if tags > 0 { headers[HTTPField.Name(ObjectTags.countHeader)!] = String(tags) }
        for (name, value) in metadata.extras where name.hasPrefix(Self.headerExtra) {
            let header = name.dropFirst(Self.headerExtra.count)
            guard let field = HTTPField.Name(String(header)) else { continue }
            headers[field] = header.hasPrefix(Self.userMetadataPrefix) ? EncodedWords.encode(value) : value
        }
        return headers
    }

    /// The extra that keeps an object's checksum for `algorithm`.
    static func checksumExtra(_ algorithm: String) -> String {
        Self.checksumExtra + algorithm.lowercased()
    }

    /// The stored checksum, as `x-amz-checksum-*` and its type, when a read asks (`x-amz-checksum-mode:
    /// ENABLED`). A multipart object's composite checksum (`base64-N`: base64 has no `-`) is `COMPOSITE`,
    /// every other `FULL_OBJECT`.
    static func checksumHeaders(of metadata: ObjectMetadata) -> HTTPFields {
        var headers = HTTPFields()
        for (name, value) in metadata.extras where name.hasPrefix(Self.checksumExtra) {
            let algorithm = name.dropFirst(Self.checksumExtra.count)
            guard let field = HTTPField.Name("x-amz-checksum-" + algorithm) else { continue }
            headers[field] = value
            headers[HTTPField.Name("x-amz-checksum-type")!] = value.contains("-") ? "COMPOSITE" : "FULL_OBJECT"
        }
        return headers
    }

    /// The `response-*` query parameters of a signed read and the headers they set, as S3 applies them.
    static let overrides: [(parameter: String, header: HTTPField.Name)] = [
        ("response-content-type", .contentType),
        ("response-content-language", .contentLanguage),
        ("response-expires", .expires),
        ("response-cache-control", .cacheControl),
        ("response-content-disposition", .contentDisposition),
        ("response-content-encoding", .contentEncoding),
    ]
}
