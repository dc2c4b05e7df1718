import Hummingbird

/// `GET /_mockcdn/requests` (filters `method`, `path` prefix, `status`; oldest first) and `DELETE` to clear.
struct JournalController {
    let journal: Journal

    struct Listing: ResponseEncodable {
        let requests: [Journal.Entry]
    }

    /// The query parameters `GET /_mockcdn/requests` filters by; any other is refused by name.
    static let filters: Set<String> = ["method", "path", "status"]

    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.get("requests") { request, context in
            let query = context.query(of: request)
            if let unknown = query.firstName(notIn: Self.filters) {
                throw HTTPError(
                    .badRequest,
                    message: "unknown filter \(unknown.prefix(64)); the filters are method, path and status"
                )
            }
            let method = query.first("method")?.uppercased()
            let path = query.first("path")
            var status: Int?
            if let text = query.first("status") {
                guard let value = Int(text), (100...599).contains(value) else {
                    throw HTTPError(.badRequest, message: "status must be an HTTP status code")
                }
                status = value
            }
            let entries = self.journal.entries.filter { entry in
                if let method, entry.method != method { return false }
                if let path, !entry.path.hasPrefix(path) { return false }
                if let status, entry.snapshot.status != status { return false }
                return true
            }
            return Listing(requests: entries)
        }
        group.delete("requests") { _, _ in
            self.journal.clear()
            return Response(status: .noContent)
        }
    }
}
