import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// CometChat's `fetchPresignedUrl(for:)`: a short-lived SigV4 link for a media URL.
///
/// For image loaders and players that cannot add headers: the link lives the app's `presign_ttl` (5 minutes
/// by default) and needs no other credential. ``loadMedia(from:)`` reads through one, fetching a fresh link
/// once when the first answers 403 (an expired link).
public struct PresignedMedia: Sendable {
    /// Server, app and credentials.
    public let configuration: MockCDNClientConfiguration
    let session: URLSession

    /// Presigned media for `configuration`, over `session`.
    ///
    /// - Parameters:
    ///   - configuration: server, app and the FAT that presign calls send.
    ///   - session: the session for presign calls and media reads.
    public init(configuration: MockCDNClientConfiguration, session: URLSession = .shared) {
        self.configuration = configuration
        self.session = session
    }

    private struct PresignAnswer: Decodable {
        let url: String
    }

    private struct ErrorAnswer: Decodable {
        struct Body: Decodable {
            let code: String
            let message: String
        }

        let error: Body
    }

    /// A presigned URL for `url`; never cache it (it expires in about 5 minutes).
    ///
    /// - Parameter url: a media URL of the app (`{base}/{app}/{key}`); any query it has is ignored.
    /// - Returns: the presigned URL.
    /// - Throws: `MockCDNClientError` `.notLoggedIn` (no or refused FAT), `.invalidURL`, `.network`,
    ///   `.invalidResponse`.
    public func fetchPresignedURL(for url: URL) async throws(MockCDNClientError) -> URL {
        let secureMedia = SecureMedia(configuration: self.configuration)
        guard let fat = secureMedia.decodedFat else { throw .notLoggedIn("no File Access Token: log in first") }
        let endpoint = self.configuration.baseURL.appendingPathComponent("v1/apps/\(self.configuration.appID)/presign")
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(fat, forHTTPHeaderField: SecureMedia.fatName)
        request.httpBody = try? JSONEncoder().encode(["url": url.absoluteString])
        let (data, status) = try await self.send(request)
        switch status {
        case 200:
            guard let answer = try? JSONDecoder().decode(PresignAnswer.self, from: data),
                let presigned = URL(string: answer.url)
            else { throw .invalidResponse("the presign answer is not {\"url\":...}") }
            return presigned
        case 401: throw .notLoggedIn(Self.message(data) ?? "the server refused the File Access Token")
        case 400 where Self.code(data) == "ERR_INVALID_URL":
            throw .invalidURL(Self.message(data) ?? "not a media URL of this app")
        default: throw .invalidResponse("presign answered \(status): \(Self.message(data) ?? "")")
        }
    }

    /// The completion-handler form of ``fetchPresignedURL(for:)``, for code that is not async.
    ///
    /// - Parameters:
    ///   - url: a media URL of the app.
    ///   - completion: called once, from a task of its own, with the presigned URL or the error.
    public func fetchPresignedURL(
        for url: URL,
        completion: @escaping @Sendable (Result<URL, MockCDNClientError>) -> Void
    ) {
        Task {
            do throws(MockCDNClientError) {
                completion(.success(try await self.fetchPresignedURL(for: url)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Reads a media URL through a fresh presigned URL; when that answers 403 (expired), fetches a new
    /// presigned URL and retries exactly once.
    ///
    /// - Parameter url: the media URL.
    /// - Returns: the bytes.
    /// - Throws: `MockCDNClientError`; `.invalidResponse` when the retry is refused too.
    public func loadMedia(from url: URL) async throws(MockCDNClientError) -> Data {
        var attempt = 0
        while true {
            let presigned = try await self.fetchPresignedURL(for: url)
            let (data, status) = try await self.send(URLRequest(url: presigned))
            if status == 200 || status == 206 { return data }
            guard status == 403, attempt == 0 else {
                throw .invalidResponse("the presigned URL answered \(status)")
            }
            attempt += 1
        }
    }

    func send(_ request: URLRequest) async throws(MockCDNClientError) -> (Data, Int) {
        let (data, response) = try await self.exchange(request)
        return (data, response.statusCode)
    }

    /// Sends a request; the body and the whole answer, headers included.
    func exchange(_ request: URLRequest) async throws(MockCDNClientError) -> (Data, HTTPURLResponse) {
        try await Self.exchange(request, session: self.session)
    }

    /// Sends a request over `session`; a transport failure is `.network` (`cancelled` for a cancelled task).
    static func exchange(
        _ request: URLRequest,
        session: URLSession
    ) async throws(MockCDNClientError) -> (Data, HTTPURLResponse) {
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw MockCDNClientError.invalidResponse("not HTTP") }
            return (data, http)
        } catch let error as MockCDNClientError {
            throw error
        } catch {
            let cancelled = error is CancellationError || (error as? URLError)?.code == .cancelled
            throw .network(cancelled ? "cancelled" : error.localizedDescription)
        }
    }

    static func message(_ data: Data) -> String? {
        (try? JSONDecoder().decode(ErrorAnswer.self, from: data))?.error.message
    }

    static func code(_ data: Data) -> String? { (try? JSONDecoder().decode(ErrorAnswer.self, from: data))?.error.code }
}
