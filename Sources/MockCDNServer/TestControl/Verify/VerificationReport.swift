import Hummingbird

/// The answer of `POST /_mockcdn/verify`, 200 when every expectation is met and 409 otherwise: each
/// expectation's matches, and for an unmet one what fell short and its near misses; and the whole in plain
/// text (`report`), which the helpers put in a failed test's message.
struct VerificationReport: ResponseEncodable, Sendable {
    /// One per expectation, in order.
    let outcomes: [Verification.Outcome]
    /// Whether the list was ordered, for the summary line.
    let ordered: Bool
    /// The `since` id's number, when one was given.
    let since: Int?

    /// Whether every expectation was met: 200, else 409.
    var met: Bool { self.outcomes.allSatisfy(\.isMet) }

    /// The report in plain text: a summary line, then each unmet expectation with its problem and its near
    /// misses, one line each.
    var text: String {
        let unmet = self.outcomes.filter { !$0.isMet }
        var scope: [String] = []
        if self.ordered { scope.append("in order") }
        if let since { scope.append("entries after r\(since)") }
        let suffix = scope.isEmpty ? "" : " (" + scope.joined(separator: ", ") + ")"
        guard !unmet.isEmpty else {
            return "MockCDN verify: all \(self.outcomes.count) expectations met\(suffix)"
        }
        var lines = ["MockCDN verify: \(unmet.count) of \(self.outcomes.count) expectations not met\(suffix)"]
        for outcome in unmet {
            lines.append(
                "expectations[\(outcome.index)] (\(outcome.expectation.summary)): \(outcome.problem ?? "")"
            )
            if outcome.nearMisses.isEmpty {
                if outcome.matched.count < outcome.expectation.count.min {
                    lines.append("  no journal entry came close")
                }
            } else {
                lines.append("  closest:")
                for miss in outcome.nearMisses { lines.append("  - \(miss.record.line): \(miss.explanation)") }
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension VerificationReport {
    enum CodingKeys: String, CodingKey {
        case met, expectations, report
    }

    /// `{"met","expectations","report"}`.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.met, forKey: .met)
        try container.encode(self.outcomes, forKey: .expectations)
        try container.encode(self.text, forKey: .report)
    }
}

extension Verification.Outcome: Encodable {
    enum CodingKeys: String, CodingKey {
        case index, met, expected, matched, problem
        case nearMisses = "near_misses"
    }

    /// `{"index","met","expected","matched","problem","near_misses"}`; `problem` is null and `near_misses`
    /// empty for a met expectation.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.index, forKey: .index)
        try container.encode(self.isMet, forKey: .met)
        try container.encode(self.expectation.summary, forKey: .expected)
        try container.encode(self.matched, forKey: .matched)
        try container.encode(self.problem, forKey: .problem)
        try container.encode(self.nearMisses, forKey: .nearMisses)
    }
}

extension NearMiss: Encodable {
    enum CodingKeys: String, CodingKey {
        case id, clock, method, path, query, credential, status, reason, matched, differences, explanation
        case expiredAt = "expired_at"
    }

    /// The entry's own fields as the journal shows them, then `matched` (the fields that matched),
    /// `differences` and `explanation`.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.record.id, forKey: .id)
        try container.encode(self.record.clock, forKey: .clock)
        try container.encode(self.record.method, forKey: .method)
        try container.encode(self.record.path, forKey: .path)
        try container.encode(self.record.query, forKey: .query)
        try container.encode(self.record.credential.rawValue, forKey: .credential)
        try container.encode(self.record.status, forKey: .status)
        try container.encode(self.record.reason, forKey: .reason)
        try container.encode(self.record.expiredAt, forKey: .expiredAt)
        try container.encode(self.matched.map(\.rawValue), forKey: .matched)
        try container.encode(self.differences, forKey: .differences)
        try container.encode(self.explanation, forKey: .explanation)
    }
}
