import HTTPTypes

extension S3Operation {
    /// The markers around the generated list in `docs/s3-api.md`.
    static let notServedMarkers = (start: "<!-- s3-not-served:start -->", end: "<!-- s3-not-served:end -->")

    /// The operations MockCDN answers 501 `NotImplemented`, one row per request S3 addresses them by, as
    /// `docs/s3-api.md` lists them between `notServedMarkers`.
    static var notServedTable: String {
        var lines = ["| request | operations | answer |", "|---|---|---|"]
        for row in Self.all where row.answer == .notImplemented {
            let request =
                "\(row.method.rawValue) \(row.target.path)" + (row.subresource.map { "?" + $0 } ?? "")
                + (row.service == "s3" ? "" : " (signed for \(row.service))")
            let names = row.names.joined(separator: ", ")
            lines.append("| `\(request)` | \(names) | 501 `NotImplemented` |")
        }
        return lines.map { $0 + "\n" }.joined()
    }
}
