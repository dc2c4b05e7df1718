/// An XML element as `XMLReader` read it: its local name and namespace, its child elements in order, and its
/// own text (its character data and CDATA sections joined in order, entities and character references
/// decoded; comments and processing instructions are not text).
///
/// The readers of S3's documents look children up by name in their parent's namespace, so a document reads
/// the same with S3's namespace on its root (as boto3 sends it) or with none, and an element of another
/// namespace is no element of the document's.
public struct XMLTree: Sendable, Equatable {
    /// The local name, without a prefix.
    public let name: String
    /// The namespace URI; nil for none.
    public let namespace: String?
    /// The child elements, in document order.
    public internal(set) var children: [XMLTree]
    /// The element's own text, not its children's.
    public internal(set) var text: String

    /// An element.
    ///
    /// - Parameters:
    ///   - name: the local name.
    ///   - namespace: the namespace URI, nil for none.
    ///   - text: the element's own text.
    ///   - children: its child elements, in order.
    public init(_ name: String, namespace: String? = nil, text: String = "", children: [XMLTree] = []) {
        self.name = name
        self.namespace = namespace
        self.text = text
        self.children = children
    }

    /// The child elements named `name` in this element's namespace, in order.
    ///
    /// - Parameter name: a local name.
    /// - Returns: those children.
    public func children(named name: String) -> [XMLTree] {
        self.children.filter { $0.name == name && $0.namespace == self.namespace }
    }

    /// The first child element named `name` in this element's namespace.
    ///
    /// - Parameter name: a local name.
    /// - Returns: that child, or nil.
    public func child(named name: String) -> XMLTree? {
        self.children.first { $0.name == name && $0.namespace == self.namespace }
    }

    /// The text without the XML whitespace (space, tab, CR, LF) around it: how a schema reads a number or a
    /// boolean. A key's text is read as it is instead.
    public var trimmedText: Substring {
        // Read as bytes (a completion reads 10,000 part numbers): XML's whitespace is ASCII, so the first byte
        // kept starts a scalar and the end is just after one.
        let isWhitespace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        let utf8 = self.text.utf8
        guard let first = utf8.firstIndex(where: { !isWhitespace($0) }),
            let last = utf8.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return self.text[first..<utf8.index(after: last)]
    }
}
