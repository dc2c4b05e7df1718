import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The companion client of MockCDN, shaped after the SDK APIs app teams use.
///
/// It bundles CometChat's secure-media helpers and uploads (``secureMedia``, ``presigned``, ``mediaUploads``),
/// Stream's ``CDNStorage`` and ``CDNRequester`` (``storage``, ``requester``), and uploads through presigned
/// URLs and forms (``presignedUploads``), all over one configuration. Foundation only: it runs
/// in an iOS app and on Linux, and knows nothing of the server.
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
    /// CometChat's uploads: the media route with the FAT, and upload URLs.
    public let mediaUploads: CometChatUploads
    /// Uploads through URLs and forms someone else signed: a presigned `PUT`, an S3 presigned POST.
    public let presignedUploads: PresignedUploads

    /// A client for `configuration`.
    ///
    /// - Parameters:
    ///   - configuration: server, app and credentials.
    ///   - session: the session for presign calls, media reads, FAT mints, CometChat's uploads and presigned
    ///     uploads. The storage's uploads run on sessions of their own (for their progress), its deletes and
    ///     listings on `URLSession.shared`.
    public init(configuration: MockCDNClientConfiguration, session: URLSession = .shared) {
        self.configuration = configuration
        self.secureMedia = SecureMedia(configuration: configuration)
        self.presigned = PresignedMedia(configuration: configuration, session: session)
        self.storage = MockCDNStorage(configuration: configuration)
        self.requester = MockCDNRequester(configuration: configuration)
        self.mediaUploads = CometChatUploads(configuration: configuration, session: session)
        self.presignedUploads = PresignedUploads(session: session)
    }

    /// The bytes a request built by `requester` answers (a resized image, a file), with its FAT.
    ///
    /// - Parameter request: a request from ``requester``, with its headers.
    /// - Returns: the body of a 200 answer.
    /// - Throws: ``MockCDNClientError/invalidResponse`` naming the status when it is not 200; `.network`
    ///   when the request does not get through.
    public func data(for request: CDNRequest) async throws -> Data {
        let (data, status) = try await self.presigned.send(request.urlRequest)
        guard status == 200 else {
            throw MockCDNClientError.invalidResponse("\(request.url.path) answered \(status)")
        }
        return data
    }

    /// A File Access Token as the app API mints it for the logged-in user.
    ///
    /// ``MockCDNClient/MockCDNClient/mintFileAccessToken(ttl:)`` gets one with `POST /v1/apps/{app}/fat` and
    /// the user token, the way a CometChat login hands one out. Give ``token`` to
    /// ``MockCDNClientConfiguration/fatProvider``.
    public struct MintedFileAccessToken: Sendable, Equatable {
        /// The token, unencoded.
        public let token: String
        /// The user it belongs to.
        public let userID: String
        /// When the server stops accepting it, by the server's clock.
        public let expiresAt: Date
    }

    /// Mints a File Access Token for the user of `userTokenProvider`.
    ///
    /// - Parameter ttl: its lifetime in seconds, 1 to 30 days; nil for the server's default (one hour).
    /// - Returns: the token, its user and its expiry.
    /// - Throws: `MockCDNClientError.notLoggedIn` without a user token or when the server refuses it;
    ///   `.invalidResponse` naming the status otherwise.
    public func mintFileAccessToken(ttl: Int? = nil) async throws(MockCDNClientError) -> MintedFileAccessToken {
        guard let userToken = self.configuration.userTokenProvider(), !userToken.isEmpty else {
            throw .notLoggedIn("no user token")
        }
        let endpoint = self.configuration.baseURL.appendingPathComponent("v1/apps/\(self.configuration.appID)/fat")
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer " + userToken, forHTTPHeaderField: "Authorization")
        request.httpBody = Data((ttl.map { #"{"ttl":\#($0)}"# } ?? "{}").utf8)
        struct Answer: Decodable {
            let fat: String
            let userID: String
            let expiresAt: Int64

            enum CodingKeys: String, CodingKey {
                case fat
                case userID = "user_id"
                case expiresAt = "expires_at"
            }
        }
        let (data, status) = try await self.presigned.send(request)
        switch status {
        case 200, 201:
            guard let answer = try? JSONDecoder().decode(Answer.self, from: data) else {
                throw .invalidResponse("the FAT answer is not {\"fat\",\"user_id\",\"expires_at\"}")
            }
            return MintedFileAccessToken(
                token: answer.fat,
                userID: answer.userID,
                expiresAt: Date(timeIntervalSince1970: TimeInterval(answer.expiresAt))
            )
        case 401: throw .notLoggedIn(PresignedMedia.message(data) ?? "the server refused the user token")
        default: throw .invalidResponse("minting a FAT answered \(status): \(PresignedMedia.message(data) ?? "")")
        }
    }
}
