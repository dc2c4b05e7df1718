import Yams

/// The members a JSON body or a YAML file may have, nested. A member not listed is refused by name, so a
/// typo (`methd`, `prot`) cannot pass for an absent member and quietly change what the input means.
indirect enum MemberShape: Sendable {
    /// Any value.
    case value
    /// An object (a mapping) with at most these members.
    case object([String: MemberShape])
    /// A list whose items have this shape.
    case list(MemberShape)

    /// The dotted name of the first member of a decoded JSON value that the shape does not allow, e.g.
    /// `match.methd`; nil when there is none.
    func unknownMember(inJSON json: Any, at prefix: String = "") -> String? {
        switch self {
        case .value:
            return nil
        case .list(let item):
            guard let items = json as? [Any] else { return nil }
            for (index, element) in items.enumerated() {
                if let unknown = item.unknownMember(inJSON: element, at: prefix.dropLast(1) + "[\(index)].") {
                    return unknown
                }
            }
            return nil
        case .object(let members):
            guard let object = json as? [String: Any] else { return nil }
            for name in object.keys.sorted() {
                guard let shape = members[name] else { return prefix + name }
                if let unknown = shape.unknownMember(inJSON: object[name]!, at: prefix + name + ".") { return unknown }
            }
            return nil
        }
    }

    /// The first key of a YAML document that the shape does not allow, with its dotted name and where it
    /// is (line and column, from 1); nil when there is none.
    func unknownMember(inYAML node: Node, at prefix: String = "") -> (name: String, mark: Mark?)? {
        switch self {
        case .value:
            return nil
        case .list(let item):
            guard let sequence = node.sequence else { return nil }
            for (index, element) in sequence.enumerated() {
                if let unknown = item.unknownMember(inYAML: element, at: prefix.dropLast(1) + "[\(index)].") {
                    return unknown
                }
            }
            return nil
        case .object(let members):
            guard let mapping = node.mapping else { return nil }
            for (key, value) in mapping {
                let name = key.string ?? ""
                guard let shape = members[name] else { return (prefix + name, key.mark) }
                if let unknown = shape.unknownMember(inYAML: value, at: prefix + name + ".") { return unknown }
            }
            return nil
        }
    }
}
