import MockCDNCore

/// An input error about one named part of a request (a field, an entry of a list): its message starts with
/// that name, `upload_sizes[1]: width must be 1...4096`, and every envelope answers it as invalid input.
struct FieldRefusal: CategorizedError, Equatable {
    let field: String
    let message: String

    var category: ErrorCategory { .invalidInput }
    var publicMessage: String { "\(self.field): \(self.message)" }

    /// Runs `body`, naming `field` in any invalid-input error it throws; other errors pass as they are.
    ///
    /// - Parameters:
    ///   - field: the part of the request `body` checks.
    ///   - body: the check.
    /// - Returns: what `body` returns.
    /// - Throws: `FieldRefusal` for an invalid-input error of `body`; any other error of `body`.
    static func naming<Value>(_ field: String, _ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as any CategorizedError where error.category == .invalidInput {
            throw FieldRefusal(field: field, message: error.publicMessage)
        }
    }
}

extension FieldRefusal {
    /// A refusal of the member a decoder reached, named by its coding path: `expectations[1].status`.
    ///
    /// - Parameters:
    ///   - path: the member's coding path.
    ///   - message: what is wrong with it.
    init(at path: [any CodingKey], _ message: String) {
        let name = path.reduce(into: "") { name, key in
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == String(index) {
                name += "[\(index)]"
            } else {
                name += name.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        self.init(field: name.isEmpty ? "request body" : name, message: message)
    }
}
