import MockCDNCore

/// A verify that would take more than `Verification.stepLimit` steps: 400 in the control routes' envelope,
/// naming the bound and what to do, rather than a thread held for as long as the document asks.
struct VerifyCostRefusal: CategorizedError, Equatable {
    /// The bound it passed.
    let limit: Int
    /// The expectations judged.
    let expectations: Int
    /// The journal entries judged.
    let entries: Int

    var category: ErrorCategory { .invalidInput }

    var publicMessage: String {
        "verify takes at most \(Self.grouped(self.limit)) steps (a step: a byte of a path or query compared, a "
            + "path segment visited, an entry judged) and these \(self.expectations) expectations over "
            + "\(Self.grouped(self.entries)) journal entries take more; judge fewer entries with since, or send "
            + "fewer expectations or simpler path globs"
    }

    /// `300,000,000`.
    private static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }
}
