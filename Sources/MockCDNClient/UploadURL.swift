import Foundation

/// Where and how to send one file: a presigned `PUT` URL and the headers signed into it.
///
/// ``CometChatUploads/uploadURLs(for:)`` gets these from `POST /v1/apps/{app}/uploads`; an app whose own
/// backend presigns S3 `PUT`s (boto3's `generate_presigned_url("put_object")`) makes one with
/// ``init(url:headers:)``. ``PresignedUploads/put(_:to:)`` sends the file.
public struct UploadURL: Sendable, Equatable, Decodable {
    /// The name the file was announced with; empty for a URL made with ``init(url:headers:)``.
    public let name: String
    /// The store key the URL writes (`{app}/media/{uuid}/{name}`); empty when not known.
    public let key: String
    /// The presigned URL; it needs no other credential.
    public let url: URL
    /// Headers the `PUT` must carry exactly as they are here (the content type is signed).
    public let headers: [String: String]
    /// The most bytes the URL accepts (the announced size); nil when not known.
    public let maxBytes: Int?
    /// When the URL stops working, by the server's clock; nil when not known.
    public let expiresAt: Date?

    /// An upload URL a backend presigned, with the headers it signed.
    ///
    /// - Parameters:
    ///   - url: the presigned `PUT` URL.
    ///   - headers: headers the signature covers (e.g. `Content-Type`); sent as they are.
    public init(url: URL, headers: [String: String] = [:]) {
        self.name = ""
        self.key = ""
        self.url = url
        self.headers = headers
        self.maxBytes = nil
        self.expiresAt = nil
    }

    enum CodingKeys: String, CodingKey {
        case name, key, url, headers
        case maxBytes = "max_bytes"
        case expiresAt = "expires_at"
    }

    /// Reads one entry of `POST /v1/apps/{app}/uploads`' `uploads`.
    ///
    /// - Parameter decoder: the entry's decoder.
    /// - Throws: `DecodingError` for a missing member or a `url` that is not a URL.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.name = try container.decode(String.self, forKey: .name)
        self.key = try container.decode(String.self, forKey: .key)
        self.url = try container.decode(URL.self, forKey: .url)
        self.headers = try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        self.maxBytes = try container.decodeIfPresent(Int.self, forKey: .maxBytes)
        self.expiresAt = try container.decodeIfPresent(Int64.self, forKey: .expiresAt).map {
            Date(timeIntervalSince1970: TimeInterval($0))
        }
    }
}
