import Hummingbird
import NIOPosix

/// `POST /_mockcdn/verify`: judges a list of expectations against the request journal (`Verification`) and
/// answers 200, or 409 with the near misses of each unmet one (`VerificationReport`). A document that is not
/// one is 400 naming the member at fault, and one that would take more than `Verification.stepLimit` steps is
/// 400 naming that bound (`VerifyCostRefusal`). Like every control route, it is not journaled itself.
struct VerifyController {
    let journal: Journal
    /// The steps one verify may take (tests lower it).
    var stepLimit = Verification.stepLimit

    /// Adds `POST verify` to the control group.
    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.post("verify") { request, _ in
            let document = try await request.decodeJSONBody(VerifyDocument.self, shape: VerifyDocument.shape)
            let verification = Verification(
                expectations: document.expectations,
                ordered: document.ordered,
                stepLimit: self.stepLimit
            )
            // Up to the step limit of work (a large journal's copy included) runs on the blocking pool, never on
            // the cooperative threads the other requests' tasks share: a long judgement holds one thread only.
            let journal = self.journal
            let report = try await NIOThreadPool.singleton.runIfActive {
                let records = journal.entries.map(JournalRecord.init).filter { record in
                    document.since.map { record.number > $0 } ?? true
                }
                return VerificationReport(
                    outcomes: try verification.judge(records),
                    ordered: document.ordered,
                    since: document.since
                )
            }
            return EditedResponse(status: report.met ? .ok : .conflict, response: report)
        }
    }
}
