/// Why `XMLReader` refused a document. An S3 route answers every one of them with S3's 400 `MalformedXML`;
/// the reason is for the journal and for tests, never for the answer's body.
public struct XMLRefusal: CategorizedError, Sendable, Equatable, CustomStringConvertible {
    private enum Reason: Sendable, Equatable {
        case malformed(code: Int, line: Int)
        case doctype
        case tooDeep(Int)
        case tooManyElements(Int)
        case tooLarge(Int)
        case notUTF8
        case tagTooLarge
        case noMemory
    }

    private let reason: Reason

    private init(_ reason: Reason) {
        self.reason = reason
    }

    /// Not well-formed XML, as libxml2 found it: bytes that are not UTF-8, an undeclared entity, a tag left
    /// open, no root element, text after the root.
    ///
    /// - Parameters:
    ///   - code: libxml2's error code (`xmlParserErrors`).
    ///   - line: the line it was found on.
    /// - Returns: the refusal.
    public static func malformed(code: Int, line: Int) -> XMLRefusal { XMLRefusal(.malformed(code: code, line: line)) }

    /// A `<!DOCTYPE`: no DTD is read, so no entity can be declared or expanded.
    public static let doctype = XMLRefusal(.doctype)

    /// An element nested deeper than the bound.
    ///
    /// - Parameter bound: the deepest nesting taken.
    /// - Returns: the refusal.
    public static func tooDeep(_ bound: Int) -> XMLRefusal { XMLRefusal(.tooDeep(bound)) }

    /// More elements than the document may have.
    ///
    /// - Parameter bound: the most elements taken.
    /// - Returns: the refusal.
    public static func tooManyElements(_ bound: Int) -> XMLRefusal { XMLRefusal(.tooManyElements(bound)) }

    /// More bytes than the document may have.
    ///
    /// - Parameter bound: the most bytes taken.
    /// - Returns: the refusal.
    public static func tooLarge(_ bound: Int) -> XMLRefusal { XMLRefusal(.tooLarge(bound)) }

    /// An encoding declaration or byte-order mark naming another encoding than UTF-8.
    public static let notUTF8 = XMLRefusal(.notUTF8)

    /// A start tag with more than 16 attributes (namespace declarations included) or 4,096 bytes: past those,
    /// libxml2 2.9 takes time that grows with their square.
    public static let tagTooLarge = XMLRefusal(.tagTooLarge)

    /// libxml2 could not allocate.
    public static let noMemory = XMLRefusal(.noMemory)

    public var description: String {
        switch self.reason {
        case .malformed(let code, let line): "not well-formed XML (libxml2 error \(code) on line \(line))"
        case .doctype: "a DOCTYPE, which is never read"
        case .tooDeep(let bound): "elements nested deeper than \(bound)"
        case .tooManyElements(let bound): "more than \(bound) elements"
        case .tooLarge(let bound): "more than \(bound) bytes"
        case .notUTF8: "an encoding other than UTF-8"
        case .tagTooLarge: "a start tag with more than 16 attributes or 4,096 bytes"
        case .noMemory: "out of memory while reading XML"
        }
    }

    public var category: ErrorCategory { self.reason == .noMemory ? .internal : .invalidInput }

    public var publicMessage: String { "The XML document was refused: " + self.description }
}
