import Hummingbird

/// `POST /_mockcdn/verify`: judges a list of expectations against the request journal (`Verification`) and
/// answers 200, or 409 with the near misses of each unmet one (`VerificationReport`). A document that is not
/// one is 400 naming the member at fault. Like every control route, it is not journaled itself.
struct VerifyController {
    let journal: Journal

    /// Adds `POST verify` to the control group.
    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.post("verify") { request, _ in
            let document = try await request.decodeJSONBody(VerifyDocument.self, shape: VerifyDocument.shape)
            let records = self.journal.entries.map(JournalRecord.init).filter { record in
                document.since.map { record.number > $0 } ?? true
            }
            let verification = Verification(expectations: document.expectations, ordered: document.ordered)
            let report = VerificationReport(
                outcomes: verification.judge(records),
                ordered: document.ordered,
                since: document.since
            )
            return EditedResponse(status: report.met ? .ok : .conflict, response: report)
        }
    }
}
