import Hummingbird

/// `GET /_mockcdn/requests` (filters `method`, `path` prefix, `status`; oldest first) and `DELETE` to clear.
struct JournalController {
    let journal: Journal

    struct Entry: Encodable {
        let id: String
        let receivedAt: Double
        let clock: Int64
        let method: String
        let path: String
        let query: String
        let credential: String
        let status: Int
        let bytesIn: Int
        let bytesOut: Int
        let durationMilliseconds: Double
        let fault: String?
        let reason: String?

        enum CodingKeys: String, CodingKey {
            case id, clock, method, path, query, credential, status, fault, reason
            case receivedAt = "received_at"
            case bytesIn = "bytes_in"
            case bytesOut = "bytes_out"
            case durationMilliseconds = "duration_ms"
        }

        // `fault` is written as null when no rule hit, as the contract shows it.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.id, forKey: .id)
            try container.encode((self.receivedAt * 1000).rounded() / 1000, forKey: .receivedAt)
            try container.encode(self.clock, forKey: .clock)
            try container.encode(self.method, forKey: .method)
            try container.encode(self.path, forKey: .path)
            try container.encode(self.query, forKey: .query)
            try container.encode(self.credential, forKey: .credential)
            try container.encode(self.status, forKey: .status)
            try container.encode(self.bytesIn, forKey: .bytesIn)
            try container.encode(self.bytesOut, forKey: .bytesOut)
            try container.encode((self.durationMilliseconds * 1000).rounded() / 1000, forKey: .durationMilliseconds)
            try container.encode(self.fault, forKey: .fault)
            try container.encode(self.reason, forKey: .reason)
        }
    }

    struct Listing: ResponseEncodable {
        let requests: [Entry]
    }

    /// The query parameters `GET /_mockcdn/requests` filters by; any other is refused by name.
    static let filters: Set<String> = ["method", "path", "status"]

    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.get("requests") { request, _ in
            if let unknown = request.uri.queryParameters.first(where: { !Self.filters.contains(String($0.key)) }) {
                throw HTTPError(
                    .badRequest,
                    message: "unknown filter \(unknown.key.prefix(64)); the filters are method, path and status"
                )
            }
            let method = request.uri.queryParameters["method"].map { String($0).uppercased() }
            let path = request.uri.queryParameters["path"].map(String.init)
            var status: Int?
            if let text = request.uri.queryParameters["status"] {
                guard let value = Int(text), (100...599).contains(value) else {
                    throw HTTPError(.badRequest, message: "status must be an HTTP status code")
                }
                status = value
            }
            let entries = self.journal.entries.compactMap { entry -> Entry? in
                let state = entry.snapshot
                if let method, entry.method != method { return nil }
                if let path, !entry.path.hasPrefix(path) { return nil }
                if let status, state.status != status { return nil }
                return Entry(
                    id: entry.id,
                    receivedAt: entry.receivedAt,
                    clock: entry.clock,
                    method: entry.method,
                    path: entry.path,
                    query: entry.query,
                    credential: state.credential.rawValue,
                    status: state.status,
                    bytesIn: state.bytesIn,
                    bytesOut: state.bytesOut,
                    durationMilliseconds: state.durationMilliseconds,
                    fault: state.fault,
                    reason: state.reason
                )
            }
            return Listing(requests: entries)
        }
        group.delete("requests") { _, _ in
            self.journal.clear()
            return Response(status: .noContent)
        }
    }
}
