/// A journal entry that came close to an unmet expectation: which of the expectation's fields it matched,
/// and what differed, in plain words.
///
/// Ranking: the more of the expectation's fields an entry matched, the closer it is; in an ordered list,
/// being in the expectation's window (after the previous expectation's last match) counts as one more. An
/// entry that matched none of the fields given is no near miss (unless the expectation gives none and the
/// entry only came too early). Ties go to the newest entry.
///
/// What differed, field by field (in the order method, path, query, credential, status, then order):
/// - ``method `POST` where `GET` was expected``;
/// - ``path `/demo/a/b.png` does not match `/demo/*.png` ``;
/// - ``query `w=10` does not contain `h=20` `` (or ``no query where one containing `h=20` was expected``);
/// - ``credential `fat-query` where `fat-header` was expected``;
/// - `status 403 where 200 was expected`;
/// - `it came before r7, expectations[0]'s last match, in an ordered list`.
///
/// A refused entry says why on its status difference (else on its credential difference): for a credential
/// refused only for its time, `: the credential expired 3 min ago by the MockCDN clock` (its `expired_at`
/// against the entry's `clock`); for any other refusal, its reason in parentheses.
struct NearMiss: Sendable {
    /// The entry.
    let record: JournalRecord
    /// The fields given that the entry matched.
    let matched: [JournalExpectation.Field]
    /// What differed, one phrase each.
    let differences: [String]

    /// `method and path matched, but credential `fat-query` where `fat-header` was expected`.
    var explanation: String {
        let differences = self.differences.joined(separator: "; ")
        guard !self.matched.isEmpty else { return differences }
        return Self.list(self.matched.map(\.rawValue)) + " matched, but " + differences
    }

    /// The closest entries to an expectation that has too few matches, closest first.
    ///
    /// One pass keeps the best `limit` so far (no sort of every entry), and only those are put into words.
    ///
    /// - Parameters:
    ///   - expectation: the unmet expectation.
    ///   - records: every entry judged, oldest first.
    ///   - matched: per entry, the given fields it matched (every field compared).
    ///   - windowStart: the first entry of its window (0 when unordered).
    ///   - after: the entry its window follows, and the expectation that matched it (ordered lists only).
    ///   - limit: how many to return at most.
    /// - Returns: the near misses.
    static func closest(
        to expectation: JournalExpectation,
        among records: [JournalRecord],
        matched: [Verification.Fields],
        windowStart: Int,
        after: (id: String, expectation: Int)?,
        limit: Int
    ) -> [NearMiss] {
        let fields = expectation.fields
        let given = Verification.Fields(fields)
        // The best so far, closest first: a higher score, then (indexes follow arrival) the newer entry.
        var best: [(score: Int, index: Int)] = []
        for index in records.indices {
            let inWindow = index >= windowStart
            let matches = matched[index].intersection(given)
            guard !(matches == given && inWindow), !matches.isEmpty || (fields.isEmpty && !inWindow) else { continue }
            let score = matches.count + (after != nil && inWindow ? 1 : 0)
            // Later entries win ties, so an entry goes before every kept one whose score is not higher.
            let place = best.firstIndex { $0.score <= score } ?? best.count
            guard place < limit else { continue }
            best.insert((score, index), at: place)
            if best.count > limit { best.removeLast() }
        }
        return best.map { candidate in
            let record = records[candidate.index]
            let matches = matched[candidate.index].intersection(given).list
            var differences = Self.differences(
                expectation,
                record,
                unmatched: fields.filter { !matches.contains($0) }
            )
            if candidate.index < windowStart, let after {
                differences.append(
                    "it came before \(after.id), expectations[\(after.expectation)]'s last match, in an ordered list"
                )
            }
            return NearMiss(record: record, matched: matches, differences: differences)
        }
    }

    /// One phrase per field that differed, the refusal's account on the status (else the credential).
    private static func differences(
        _ expectation: JournalExpectation,
        _ record: JournalRecord,
        unmatched: [JournalExpectation.Field]
    ) -> [String] {
        var refusal = Self.refusal(of: record)
        let carrier: JournalExpectation.Field? =
            unmatched.contains(.status) ? .status : unmatched.contains(.credential) ? .credential : nil
        return unmatched.map { field in
            var phrase =
                switch field {
                case .method: "method `\(record.method)` where `\(expectation.method ?? "")` was expected"
                case .path: "path `\(record.path)` does not match `\(expectation.path?.description ?? "")`"
                case .query:
                    record.query.isEmpty
                        ? "no query where one containing `\(expectation.query ?? "")` was expected"
                        : "query `\(record.query)` does not contain `\(expectation.query ?? "")`"
                case .credential:
                    "credential `\(record.credential.rawValue)` where "
                        + "`\(expectation.credential?.rawValue ?? "")` was expected"
                case .status: "status \(record.status) where \(expectation.status?.description ?? "") was expected"
                }
            if field == carrier, let account = refusal {
                phrase += account
                refusal = nil
            }
            return phrase
        }
    }

    /// `: the credential expired 3 min ago by the MockCDN clock`, or ` (AccessDenied: ...)`; nil when the entry
    /// was no refusal.
    private static func refusal(of record: JournalRecord) -> String? {
        if let expiredAt = record.expiredAt {
            return
                ": the credential expired \(Self.duration(max(0, record.clock - expiredAt))) ago by the MockCDN clock"
        }
        return record.reason.map { " (\($0))" }
    }

    /// A span in the two largest units that are not zero: `0 s`, `45 s`, `3 min`, `3 min 20 s`, `2 h 5 min`,
    /// `1 d 3 h`.
    ///
    /// - Parameter seconds: the span, not negative.
    /// - Returns: the words.
    static func duration(_ seconds: Int64) -> String {
        let units: [(Int64, String)] = [(86_400, "d"), (3_600, "h"), (60, "min"), (1, "s")]
        guard let first = units.firstIndex(where: { seconds >= $0.0 }) else { return "0 s" }
        let (size, name) = units[first]
        var text = "\(seconds / size) \(name)"
        if first + 1 < units.count {
            let (smaller, smallerName) = units[first + 1]
            let rest = seconds % size / smaller
            if rest > 0 { text += " \(rest) \(smallerName)" }
        }
        return text
    }

    /// `a`, `a and b`, `a, b and c`.
    static func list(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " and " + words[words.count - 1]
    }
}
