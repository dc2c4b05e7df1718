/// The body of `POST /_mockcdn/verify`: `{"expectations":[...],"ordered":true,"since":"r12"}`.
struct VerifyDocument: Decodable, Sendable {
    /// Every member the body and its expectations may have: a misspelt one is refused by name rather than
    /// read as absent (a `methd` would match every method).
    static let shape = MemberShape.object([
        "expectations": .list(
            .object([
                "method": .value, "path": .value, "query": .value, "credential": .value, "status": .value,
                "count": .object(["min": .value, "max": .value]),
            ])
        ),
        "ordered": .value,
        "since": .value,
    ])

    /// The most expectations one document may hold.
    static let maximumExpectations = 100

    /// 1 to `maximumExpectations`, in the order the document gives them.
    let expectations: [JournalExpectation]
    /// Whether each expectation must be met after the previous one's last match.
    let ordered: Bool
    /// Only entries after this journal id's number are judged; nil for all.
    let since: Int?

    enum CodingKeys: String, CodingKey {
        case expectations, ordered, since
    }

    /// Reads the document, refusing a member of the wrong kind or out of range by its name.
    ///
    /// - Parameter decoder: the JSON decoder.
    /// - Throws: `FieldRefusal` naming the member.
    init(from decoder: any Decoder) throws {
        guard let members = try? decoder.container(keyedBy: CodingKeys.self) else {
            throw FieldRefusal(at: [], "must be a JSON object with expectations")
        }
        let expectations = try members.member(
            [JournalExpectation].self,
            .expectations,
            mustBe: "a list of expectations"
        )
        guard let expectations, (1...Self.maximumExpectations).contains(expectations.count) else {
            throw FieldRefusal(at: [CodingKeys.expectations], "must list 1 to \(Self.maximumExpectations) expectations")
        }
        self.expectations = expectations
        self.ordered = try members.member(Bool.self, .ordered, mustBe: "true or false") ?? false
        if let since = try members.member(String.self, .since, mustBe: "a journal id such as r12") {
            guard let number = JournalRecord.number(of: since) else {
                throw FieldRefusal(at: [CodingKeys.since], "must be a journal id such as r12")
            }
            self.since = number
        } else {
            self.since = nil
        }
    }
}
