import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension MockCDNClient {
    /// The bytes to read of an object, as a `Range: bytes=...` header asks (RFC 9110, one range).
    public enum ByteRange: Sendable, Equatable {
        /// Bytes `first...last`, counted from 0; a last byte past the end reads to the end.
        case bytes(ClosedRange<Int>)
        /// From a byte to the end (`bytes=N-`), as a player resumes.
        case from(Int)
        /// The last N bytes (`bytes=-N`), as a reader finds an MP4's index at the end.
        case last(Int)

        /// The `Range` header's value.
        public var headerValue: String {
            switch self {
            case .bytes(let range): "bytes=\(range.lowerBound)-\(range.upperBound)"
            case .from(let first): "bytes=\(first)-"
            case .last(let count): "bytes=-\(count)"
            }
        }
    }

    /// One read's answer: the bytes, the validator to revalidate with, and which part of the object came.
    public struct MediaRead: Sendable, Equatable {
        /// 200 (the whole object), 206 (the range asked for) or 304 (not modified: no bytes).
        public let status: Int
        /// The body: the object, the range, or nothing for 304.
        public let data: Data
        /// The `ETag`, quotes included: give it to ``MockCDNClient/MockCDNClient/read(_:range:ifNoneMatch:)``
        /// as `ifNoneMatch` to revalidate a cached copy.
        public let etag: String?
        /// For 206, `bytes first-last/size`.
        public let contentRange: String?

        /// True for 304: the copy cached under ``etag`` is still the object.
        public var isNotModified: Bool { self.status == 304 }
    }

    /// Reads a request built by ``requester`` as a player or an image cache does: a byte range, or a
    /// revalidation of a cached copy by its entity tag.
    ///
    /// The local URL cache is bypassed, so the server's answer (304 included) is what comes back.
    ///
    /// - Parameters:
    ///   - request: a request from ``requester``, with its headers (the FAT in header mode).
    ///   - range: the bytes to read; nil for the whole object.
    ///   - ifNoneMatch: the `ETag` of a cached copy; the server answers 304 while it still matches.
    /// - Returns: the answer: 200, 206 or 304.
    /// - Throws: ``MockCDNClientError/invalidResponse`` naming the status for any other answer (416 for a
    ///   range that starts past the end, 403 for an expired link, 404); `.network` when the request does not
    ///   get through.
    public func read(
        _ request: CDNRequest,
        range: ByteRange? = nil,
        ifNoneMatch: String? = nil
    ) async throws(MockCDNClientError) -> MediaRead {
        var urlRequest = request.urlRequest
        urlRequest.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        if let range { urlRequest.setValue(range.headerValue, forHTTPHeaderField: "Range") }
        if let ifNoneMatch { urlRequest.setValue(ifNoneMatch, forHTTPHeaderField: "If-None-Match") }
        let (data, response) = try await self.presigned.exchange(urlRequest)
        guard [200, 206, 304].contains(response.statusCode) else {
            let range = response.value(forHTTPHeaderField: "Content-Range").map { " (\($0))" } ?? ""
            throw .invalidResponse("\(request.url.path) answered \(response.statusCode)\(range)")
        }
        return MediaRead(
            status: response.statusCode,
            data: data,
            etag: response.value(forHTTPHeaderField: "ETag"),
            contentRange: response.value(forHTTPHeaderField: "Content-Range")
        )
    }
}
