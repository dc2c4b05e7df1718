#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a test reaches for, on a running server: credentials minted at the server's clock (so moving the
/// clock never makes them fail early), the clock, reset, the journal, faults, and a ready client.
extension RunningMockCDN {
    /// The default app (the demo app unless the configuration replaced it).
    public var app: AppConfiguration { self.configuration.apps[0] }

    // MARK: - Credentials at the server's clock

    /// A Stream user JWT for `user`, issued at the server's clock, without expiry (as Stream's are).
    ///
    /// - Parameters:
    ///   - user: the token's `user_id`.
    ///   - app: the app whose secret signs it; nil for the default app.
    /// - Returns: the token, for `Authorization` (with `stream-auth-type: jwt`).
    public func userToken(_ user: String, app: AppConfiguration? = nil) -> String {
        (app ?? self.app).streamToken(user: user, issuedAt: self.clock.unixSeconds)
    }

    /// A Stream server JWT (`{"server":true}`), issued at the server's clock.
    ///
    /// - Parameter app: the app whose secret signs it; nil for the default app.
    /// - Returns: the token, for `Authorization` (with `stream-auth-type: jwt`).
    public func serverToken(app: AppConfiguration? = nil) -> String {
        (app ?? self.app).streamToken(user: nil, issuedAt: self.clock.unixSeconds)
    }

    /// A File Access Token for `user`, valid for `lifetime` seconds from the server's clock.
    ///
    /// - Parameters:
    ///   - user: the token's user.
    ///   - lifetime: seconds until it expires, by the server's clock.
    ///   - app: the app whose secret signs it; nil for the default app.
    /// - Returns: the token, unencoded: percent-encode it for a query.
    public func fileAccessToken(user: String, lifetime: Int64 = 3600, app: AppConfiguration? = nil) -> String {
        (app ?? self.app).fileAccessToken(user: user, issuedAt: self.clock.unixSeconds, lifetime: lifetime)
    }

    /// A client for `user` of the default app, in `mode`: its tokens are minted at the server's clock each
    /// time it asks, so they stay valid however far a test moves the clock.
    ///
    /// - Parameters:
    ///   - user: the user its user token and FAT (valid one hour) belong to.
    ///   - mode: where it puts the FAT on media reads.
    /// - Returns: a client of this server.
    public func client(user: String = "alice", mode: SecureMediaMode = .embedded) -> MockCDNClient {
        let app = self.app
        let clock = self.clock
        return MockCDNClient(
            configuration: MockCDNClientConfiguration(
                baseURL: self.baseURL,
                appID: app.appID,
                apiKey: app.apiKey,
                secureMediaMode: mode,
                // Percent-encoded, as CometChat's SDK hands its FAT over.
                fatProvider: {
                    app.fileAccessToken(user: user, issuedAt: clock.unixSeconds, lifetime: 3600)
                        .addingPercentEncoding(withAllowedCharacters: .alphanumerics)
                },
                userTokenProvider: { app.streamToken(user: user, issuedAt: clock.unixSeconds) }
            )
        )
    }

    // MARK: - Clock

    /// Moves the server's clock forward (or back, with a negative count).
    ///
    /// - Parameters:
    ///   - seconds: seconds to move.
    ///   - days: days to move, added to `seconds`.
    public func advanceClock(seconds: Int64 = 0, days: Int64 = 0) {
        self.clock.advance(by: TimeInterval(seconds + days * 86_400))
    }

    /// Sets the server's clock; it runs on from there.
    ///
    /// - Parameter date: the server's new current time.
    public func setClock(to date: Date) {
        self.clock.set(date)
    }

    // MARK: - Control routes

    /// Back to the start-up state: objects (fixtures reloaded), variants, journal, faults, clock, channels.
    ///
    /// Tests that share a server (`@Suite(.mockCDN)`) call it first, so no test sees another's leftovers.
    ///
    /// - Throws: ``MockCDNTestServer/ControlError`` when the server does not answer 200; URLSession's error
    ///   when it cannot be reached.
    public func reset() async throws {
        // The journal is about to be emptied: `MOCKCDN_REPORT` keeps what it covered.
        try await CoverageReportFile.take(from: self)
        _ = try await self.control("POST", "/_mockcdn/reset", expecting: 200)
    }

    /// The contract coverage report of the journal (`GET /_mockcdn/report`, docs/report.md).
    ///
    /// - Parameters:
    ///   - format: `json`, `markdown` or `junit`.
    ///   - since: read the journal from this entry id on; nil for all of it.
    /// - Returns: the report's bytes.
    /// - Throws: ``MockCDNTestServer/ControlError`` when the server does not answer 200; URLSession's error
    ///   when it cannot be reached.
    public func coverageReport(format: String = "json", since: String? = nil) async throws -> Data {
        var components = URLComponents(url: self.url("/_mockcdn/report"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "format", value: format)]
        if let since { components.queryItems?.append(URLQueryItem(name: "since", value: since)) }
        return try await self.control("GET", components.url!.absoluteString, expecting: 200)
    }

    /// One journal entry: a request the server answered, as `GET /_mockcdn/requests` lists it.
    public struct JournalEntry: Decodable, Sendable {
        /// `r1`, `r2`, ... in arrival order.
        public let id: String
        /// The MockCDN clock when the request arrived, Unix seconds.
        public let clock: Int64
        /// The request's method, or `-` for a request head the parser refused.
        public let method: String
        /// The path as sent, at most 2,048 characters; secrets in it redacted.
        public let path: String
        /// Redacted: no token or signature.
        public let query: String
        /// The route the request was matched to, as `/metrics` labels it (`/{app}/**` for a media read); nil
        /// when none was.
        public let route: String?
        /// The source of the credential that authorised the request: `fat-header`, `fat-query`,
        /// `presigned`, `presigned-v2`, `s3-header-sigv4`, `s3-header-sigv2`, `s3-post-policy`, `cloudfront`,
        /// `cloudfront-cookie`, `jwt` or `none`; never the credential itself.
        public let credential: String
        /// The status answered.
        public let status: Int
        /// The fault rule that hit the request, if any.
        public let fault: String?
        /// An error answer's code and message (never a credential).
        public let reason: String?
        /// For a credential refused only because its time had passed: the expiry it named, Unix seconds by the
        /// server's clock (compare with ``clock``).
        public let expiredAt: Int64?

        enum CodingKeys: String, CodingKey {
            case id, clock, method, path, query, route, credential, status, fault, reason
            case expiredAt = "expired_at"
        }
    }

    /// The journal, oldest first, filtered by method, path prefix and status.
    ///
    /// - Parameters:
    ///   - method: only requests with this method; nil for any.
    ///   - path: only paths starting with this; nil for any.
    ///   - status: only answers with this status; nil for any.
    /// - Returns: the entries, oldest first.
    /// - Throws: ``MockCDNTestServer/ControlError`` when the server does not answer 200; URLSession's error
    ///   when it cannot be reached; a decoding error when the answer is not the journal's JSON.
    public func journal(
        method: String? = nil,
        path: String? = nil,
        status: Int? = nil
    ) async throws
        -> [JournalEntry]
    {
        var components = URLComponents(url: self.url("/_mockcdn/requests"), resolvingAgainstBaseURL: false)!
        var items: [URLQueryItem] = []
        if let method { items.append(URLQueryItem(name: "method", value: method)) }
        if let path { items.append(URLQueryItem(name: "path", value: path)) }
        if let status { items.append(URLQueryItem(name: "status", value: String(status))) }
        components.queryItems = items.isEmpty ? nil : items
        let data = try await self.control("GET", components.url!.absoluteString, expecting: 200)
        struct Listing: Decodable { let requests: [JournalEntry] }
        return try JSONDecoder().decode(Listing.self, from: data).requests
    }

    /// Installs a fault rule, given as the JSON `POST /_mockcdn/faults` takes; returns its id.
    ///
    /// - Parameter json: the rule, e.g. `{"match":{"path":"/demo/"},"times":1,"action":{"status":503}}`.
    /// - Returns: the rule's id (`f1`, `f2`, ...), as the journal's `fault` names it.
    /// - Throws: ``MockCDNTestServer/ControlError`` when the server refuses the rule (any answer but 201);
    ///   URLSession's error when it cannot be reached.
    @discardableResult
    public func addFault(_ json: String) async throws -> String {
        let data = try await self.control("POST", "/_mockcdn/faults", body: Data(json.utf8), expecting: 201)
        struct Created: Decodable { let id: String }
        return try JSONDecoder().decode(Created.self, from: data).id
    }

    /// Removes every fault rule.
    ///
    /// - Throws: ``MockCDNTestServer/ControlError`` when the server does not answer 204; URLSession's error
    ///   when it cannot be reached.
    public func clearFaults() async throws {
        _ = try await self.control("DELETE", "/_mockcdn/faults", expecting: 204)
    }

    /// A control request; anything but `expecting` throws with the server's answer.
    private func control(
        _ method: String,
        _ target: String,
        body: Data? = nil,
        expecting status: Int
    ) async throws
        -> Data
    {
        let (data, code) = try await self.controlAnswer(method, target, body: body)
        guard code == status else {
            throw MockCDNTestServer.ControlError(
                status: code,
                message: "\(method) \(target): \(String(decoding: data.prefix(300), as: UTF8.self))"
            )
        }
        return data
    }
}

extension RunningMockCDN {
    /// A control request and whatever it answered: the body, and the status (0 when the answer was not HTTP).
    ///
    /// - Parameters:
    ///   - method: the method.
    ///   - target: a path on the server, or an absolute URL.
    ///   - body: a JSON body, if any.
    /// - Returns: the answer's body and status.
    /// - Throws: URLSession's error when the server cannot be reached.
    func controlAnswer(_ method: String, _ target: String, body: Data? = nil) async throws -> (Data, Int) {
        var request = URLRequest(url: target.hasPrefix("http") ? URL(string: target)! : self.url(target))
        request.httpMethod = method
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession.shared.data(for: request)
        return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
    }
}

extension MockCDNTestServer {
    /// A control route answered something other than expected.
    public struct ControlError: Error, CustomStringConvertible {
        /// The status the route answered (0 when the answer was not HTTP).
        public let status: Int
        /// The method and target, then the start of the server's answer (at most 300 bytes).
        public let message: String
        /// The status, then the message.
        public var description: String { "\(self.status) \(self.message)" }
    }
}
