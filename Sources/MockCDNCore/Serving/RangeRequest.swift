/// What a `Range` header asks of a representation, per RFC 9110 section 14.
public enum RangeRequest: Sendable, Equatable {
    /// No usable Range header (absent, another unit, or invalid syntax, which RFC 9110 says to ignore):
    /// serve the whole representation with 200.
    case whole
    /// One satisfiable range: serve it with 206.
    case partial(Range<Int>)
    /// Several satisfiable ranges: the contract lets MockCDN answer 200 with the whole representation.
    case multiple
    /// No range overlaps the representation: 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    /// The most range specs read from one header; more is treated as abuse and ignored.
    public static let maximumSpecs = 64

    /// Reads a `Range` header against a representation of `size` bytes.
    ///
    /// - Parameters:
    ///   - header: the header value, or nil when absent.
    ///   - size: the representation's length.
    /// - Returns: what to serve.
    public static func parse(_ header: String?, size: Int) -> RangeRequest {
        guard let header else { return .whole }
        let unitAndSet = header.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard unitAndSet.count == 2, unitAndSet[0].lowercased() == "bytes" else { return .whole }
        // A range-set is a comma list; empty elements and optional white space are allowed (RFC 9110 5.6.1).
        let specs = unitAndSet[1].split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        guard !specs.isEmpty, specs.count <= maximumSpecs else { return .whole }

        var satisfiable: [Range<Int>] = []
        for spec in specs {
            let bounds = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard bounds.count == 2 else { return .whole }
            let first = bounds[0]
            let last = bounds[1]
            if first.isEmpty {
                // suffix-range: the last N bytes.
                guard let length = number(last) else { return .whole }
                if length > 0 && size > 0 { satisfiable.append(max(0, size - length)..<size) }
            } else {
                guard let start = number(first) else { return .whole }
                var end = size - 1
                if !last.isEmpty {
                    guard let lastPosition = number(last), lastPosition >= start else { return .whole }
                    end = min(lastPosition, size - 1)
                }
                if start < size { satisfiable.append(start..<(end + 1)) }
            }
        }
        switch satisfiable.count {
        case 0: return .unsatisfiable
        case 1: return .partial(satisfiable[0])
        default: return .multiple
        }
    }

    /// 1*DIGIT; values past Int.max saturate (they are beyond any representation anyway).
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(text) ?? Int.max
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
