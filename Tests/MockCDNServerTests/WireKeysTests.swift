import Foundation
import Testing

@testable import MockCDNServer

/// The one key strategy of MockCDN's JSON answers: every member name the answer types use, as the contract
/// spells it on the wire.
@Suite("Wire keys")
struct WireKeysTests {
    @Test(
        "lowerCamelCase names, acronyms included, are written in snake_case",
        arguments: [
            ("userID", "user_id"), ("appID", "app_id"), ("thumbURL", "thumb_url"), ("uploadSizes", "upload_sizes"),
            ("issuedAt", "issued_at"), ("expiresIn", "expires_in"), ("maxBytes", "max_bytes"),
            ("contentType", "content_type"), ("thumbnailFAT", "thumbnail_fat"), ("s3Region", "s3_region"),
            ("presignedURLTTL", "presigned_url_ttl"), ("fileUploadConfig", "file_upload_config"),
            ("mimeType", "mime_type"), ("publicKey", "public_key"), ("apiKey", "api_key"),
        ]
    )
    func snakeCase(name: String, wire: String) {
        #expect(WireKeys.snakeCase(name) == wire)
    }

    @Test(
        "a key that is not lowerCamelCase is written as it is",
        arguments: ["id", "status", "duration_ms", "SECURED_MEDIA_HOST", "Content-Type", "x-amz-meta-a", "Key"]
    )
    func unchanged(key: String) {
        #expect(WireKeys.snakeCase(key) == key)
    }

    @Test("the response encoder applies it to members, and leaves dictionary keys that are not camelCase alone")
    func encoder() throws {
        struct Answer: Encodable {
            let thumbURL: String
            let headers: [String: String]
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = WireKeys.encoding
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = try encoder.encode(Answer(thumbURL: "t", headers: ["Content-Type": "image/png"]))
        #expect(String(decoding: json, as: UTF8.self) == #"{"headers":{"Content-Type":"image/png"},"thumb_url":"t"}"#)
    }
}
