import Yams

/// Where in the file a start-up error is: the line and column of a value the decoder refused, and the two
/// places of an app id or API key given twice.
extension ConfigurationFile {
    /// The first `app_id` or `api_key` that two apps of the file share, with both places.
    ///
    /// - Parameter root: the file's composed YAML.
    /// - Returns: the key's name and value, and the marks of its first and second use; nil when every app has its
    ///   own.
    static func repeatedAppMember(in root: Node) -> (member: String, value: String, first: Mark?, second: Mark?)? {
        guard let apps = root.mapping?["apps"]?.sequence else { return nil }
        for member in ["app_id", "api_key"] {
            var seen: [String: Mark?] = [:]
            for app in apps {
                guard let value = app.mapping?[member], let text = value.string else { continue }
                if let first = seen[text] { return (member, text, first, value.mark) }
                seen[text] = value.mark
            }
        }
        return nil
    }

    /// The node a decoder's coding path leads to.
    ///
    /// - Parameters:
    ///   - path: the coding path (mapping keys and sequence indices).
    ///   - root: the file's composed YAML.
    /// - Returns: the node, or nil when the path leaves the document.
    static func node(at path: [any CodingKey], in root: Node) -> Node? {
        var node = root
        for key in path {
            if let index = key.intValue {
                guard let sequence = node.sequence, index < sequence.count else { return nil }
                node = sequence[index]
            } else {
                guard let next = node.mapping?[key.stringValue] else { return nil }
                node = next
            }
        }
        return node
    }

    /// "line L, column C: " for a mark, or nothing.
    static func place(_ mark: Mark?) -> String {
        mark.map { "line \($0.line), column \($0.column): " } ?? ""
    }

    /// A type the decoder expected, in the file's words.
    static func kind(expected type: Any.Type) -> String {
        switch type {
        case is Node.Sequence.Type: "a list (each item starting with `- `)"
        case is Node.Mapping.Type: "a mapping of `name: value` lines"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is UInt.Type, is Double.Type: "a number"
        case is String.Type: "a text value"
        default: "\(type)"
        }
    }

    /// What a node is, in the file's words.
    static func kind(of node: Node) -> String {
        switch node {
        case .scalar: "a value"
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }
}
