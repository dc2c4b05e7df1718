import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The companion client of MockCDN, shaped after the SDK APIs app teams use: CometChat's secure-media
/// helpers (`secureMedia`, `presigned`) and Stream's `CDNStorage` and `CDNRequester` (`storage`,
/// `requester`). Foundation only: it runs in an iOS app and on Linux, and knows nothing of the server.
public struct MockCDNClient: Sendable {
    /// Server, app and credentials.
    public let configuration: MockCDNClientConfiguration
    /// CometChat's secure-media helpers: the FAT in the URL or in a header.
    public let secureMedia: SecureMedia
    /// Presigned URLs and the loader that retries once on 403.
    public let presigned: PresignedMedia
    /// Stream's `CDNStorage`: upload and delete.
    public let storage: MockCDNStorage
    /// Stream's `CDNRequester`: image and file requests.
    public let requester: MockCDNRequester

    /// - Parameters:
    ///   - configuration: server, app and credentials.
    ///   - session: the session for presign calls and media reads.
    public init(configuration: MockCDNClientConfiguration, session: URLSession = .shared) {
        self.configuration = configuration
        self.secureMedia = SecureMedia(configuration: configuration)
        self.presigned = PresignedMedia(configuration: configuration, session: session)
        self.storage = MockCDNStorage(configuration: configuration)
        self.requester = MockCDNRequester(configuration: configuration)
    }

    /// The bytes a request built by `requester` answers (a resized image, a file), with its FAT.
    ///
    /// - Throws: `MockCDNClientError.invalidResponse` naming the status when it is not 200.
    public func data(for request: CDNRequest) async throws -> Data {
        let (data, status) = try await self.presigned.send(request.urlRequest)
        guard status == 200 else {
            throw MockCDNClientError.invalidResponse("\(request.url.path) answered \(status)")
        }
        return data
    }
}
