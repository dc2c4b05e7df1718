import MockCDNCore
import NIOCore

/// A DeleteObjects document (`<Delete><Object><Key>...</Key></Object>...<Quiet>true</Quiet></Delete>`) as
/// typed values: its keys in order, exactly as sent (a CDATA section's text, entities decoded, never a
/// commented-out `<Object>`), and whether it asks for quiet mode.
struct DeleteRequest: Equatable {
    let keys: [String]
    let quiet: Bool

    /// The bounds of the document: the body limit, and the elements 1,000 `<Object>`s may hold
    /// (`Key`, `VersionId`, `ETag`, `LastModifiedTime`, `Size`) with the root and `<Quiet>`.
    static let limits = XMLReader.Limits(
        maximumBytes: BatchDelete.maximumBodyBytes,
        maximumElements: 2 + BatchDelete.maximumKeys * 6
    )

    /// Reads a DeleteObjects body, off the event loops.
    ///
    /// - Parameter body: the request body, read and authenticated.
    /// - Returns: the request.
    /// - Throws: 400 `MalformedXML` for a document that is not a `<Delete>` S3 would take.
    static func read(_ body: ByteBuffer) async throws -> DeleteRequest {
        try DeleteRequest(try await S3XML.tree(of: body, root: "Delete", limits: Self.limits))
    }
}

// In an extension, so that the memberwise initialiser stays.
extension DeleteRequest {
    /// The request a `<Delete>` element makes.
    ///
    /// - Parameter delete: the root element.
    /// - Throws: 400 `MalformedXML` for no `<Object>` or more than 1,000, an `<Object>` without exactly one
    ///   `<Key>`, or a `<Quiet>` that is not a boolean.
    init(_ delete: XMLTree) throws(S3Error) {
        var keys: [String] = []
        for object in delete.children(named: "Object") {
            let named = object.children(named: "Key")
            guard named.count == 1 else { throw .malformedXML }
            keys.append(named[0].text)
        }
        guard !keys.isEmpty, keys.count <= BatchDelete.maximumKeys else { throw .malformedXML }
        self.keys = keys
        // xs:boolean, as S3's schema reads it; a capital letter is taken, as MockCDN always took it.
        switch delete.child(named: "Quiet").map({ $0.trimmedText.lowercased() }) {
        case nil, "false", "0": self.quiet = false
        case "true", "1": self.quiet = true
        default: throw .malformedXML
        }
    }
}
