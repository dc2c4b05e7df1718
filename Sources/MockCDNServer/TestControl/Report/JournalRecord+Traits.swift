import Foundation
import MockCDNCore

/// What the predicates of `ContractBehaviours` ask of an entry: which surface answered it (from its path,
/// method, credential and the envelope its reason is written in), its query parameters, its reason.
extension JournalRecord {
    /// The path's segments, percent-encoding kept (`/demo/images/a.png` is `demo`, `images`, `a.png`).
    var segments: [Substring] { self.path.split(separator: "/", omittingEmptySubsequences: true) }

    /// The value of a query parameter (the first, percent-decoded), nil when it is absent; names compare
    /// case-insensitively.
    ///
    /// - Parameter name: the parameter's name, lower case.
    /// - Returns: its decoded value, empty for a bare name.
    func queryValue(_ name: String) -> String? {
        for pair in self.query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard Self.decoded(parts[0]).lowercased() == name else { continue }
            return parts.count > 1 ? Self.decoded(parts[1]) : ""
        }
        return nil
    }

    /// Whether the query carries a parameter.
    ///
    /// - Parameter name: the parameter's name, lower case.
    /// - Returns: true when it is there, with or without a value.
    func hasQuery(_ name: String) -> Bool { self.queryValue(name) != nil }

    /// Whether the refusal's reason contains a text, case-insensitively.
    ///
    /// - Parameter text: the words to find.
    /// - Returns: false for an answer without a reason.
    func reasonHas(_ text: String) -> Bool {
        self.reason?.range(of: text, options: .caseInsensitive) != nil
    }

    /// Whether a route answered: a fault rule with a `status` answers in its place, and such an answer says
    /// nothing about the contract, only about the fault; an error answer without a reason is the router's
    /// empty 404 for a path no route takes (every route group's envelope gives its errors a reason).
    var routeRan: Bool {
        !self.faultKinds.contains("status") && self.method != "-" && (self.status < 400 || self.reason != nil)
    }

    /// A Stream route: `/channels/...`, `/api/v2/...`, `/app`.
    var isStream: Bool {
        guard let first = self.segments.first else { return false }
        return first == "channels" || first == "api" || (first == "app" && self.segments.count == 1)
    }

    /// A CometChat route: `/v1/apps/...`, `POST /{app}/media`, and a presigned `PUT /{app}/{key}` (the
    /// second half of an upload URL), recognised by its credential or, refused, by CometChat's `ERR_` codes.
    var isCometChat: Bool {
        let segments = self.segments
        guard let first = segments.first else { return false }
        if first == "v1" { return true }
        if self.method == "POST", segments.count == 2, segments[1] == "media" { return true }
        if self.method == "PUT", segments.count >= 2 {
            return self.credential == .presigned || self.credential == .presignedV2
                || self.reason?.hasPrefix("ERR_") == true
        }
        return false
    }

    /// A CDN read: `GET|HEAD /{app}/{key}`, but for S3's object sub-resources the read route hands over
    /// (`?acl`, `?tagging`), which are the S3 API's.
    var isMediaRead: Bool {
        (self.method == "GET" || self.method == "HEAD") && self.segments.count >= 2 && !self.isStream
            && !self.isCometChat && !self.hasQuery("acl") && !self.hasQuery("tagging")
    }

    /// A request on the S3 API: any other request on `/{app}` or `/{app}/{key}`.
    var isS3: Bool {
        self.method != "-" && !self.segments.isEmpty && !self.isStream && !self.isCometChat && !self.isMediaRead
    }

    /// A successful answer: 2xx or 304.
    var succeeded: Bool { (200..<300).contains(self.status) || self.status == 304 }

    /// A refusal because a credential or signed link had expired, by the reason's words.
    var refusedAsExpired: Bool {
        (self.status == 401 || self.status == 403) && self.reasonHas("expired")
    }

    /// The resize mode of a read that asked for a size (`w` or `h`): `resize`, `clip` when absent.
    var resizeMode: String? {
        let width = self.queryValue("w") ?? ""
        let height = self.queryValue("h") ?? ""
        guard !width.isEmpty || !height.isEmpty else { return nil }
        return (self.queryValue("resize") ?? "clip").lowercased()
    }

    /// Percent-decodes a query name or value leniently, keeping `+` as `+` as the server does.
    private static func decoded(_ text: Substring) -> String {
        let bytes = Redaction.percentDecoded(ArraySlice(text.utf8))
        return String(decoding: bytes, as: UTF8.self)
    }
}
