/// A literal byte string to find in text, with its Knuth-Morris-Pratt failure table: finding its leftmost
/// occurrence costs at most two comparisons per byte scanned, whatever the literal and the text (a naive
/// search costs up to their product). `Glob` finds the literals between its stars with it; verify's `query`
/// (text a journal entry's query contains) is one.
public struct ByteSearch: Sendable {
    /// The literal.
    public let bytes: [UInt8]
    /// `failure[i]` is the length of the longest proper prefix of `bytes[...i]` that is also its suffix.
    @usableFromInline let failure: [Int]

    /// Prepares a search for `bytes`.
    ///
    /// - Parameter bytes: the literal; an empty one is found at once.
    public init(_ bytes: some Sequence<UInt8>) {
        let bytes = Array(bytes)
        self.bytes = bytes
        var failure = [Int](repeating: 0, count: bytes.count)
        var length = 0
        for index in bytes.indices.dropFirst() {
            while length > 0, bytes[index] != bytes[length] { length = failure[length - 1] }
            if bytes[index] == bytes[length] { length += 1 }
            failure[index] = length
        }
        self.failure = failure
    }

    /// Finds the literal's leftmost occurrence in `text[start..<end]`.
    ///
    /// - Parameters:
    ///   - text: the text, read in place (a span costs no reference counting in the loop).
    ///   - start: where to start looking.
    ///   - end: where an occurrence must end by.
    ///   - steps: counts the comparisons, at most twice the bytes scanned.
    /// - Returns: the index just past the occurrence; nil when there is none.
    @inlinable
    public func end(in text: Span<UInt8>, from start: Int, to end: Int, steps: inout Int) -> Int? {
        let count = self.bytes.count
        var matched = 0
        var index = start
        var compared = 0
        defer { steps += compared }
        while end - index >= count - matched {
            if matched == count { return index }
            compared += 1
            if text[index] == self.bytes[matched] {
                matched += 1
                index += 1
            } else if matched > 0 {
                matched = self.failure[matched - 1]
            } else {
                index += 1
            }
        }
        return matched == count ? index : nil
    }

    /// Whether the literal occurs anywhere in `text`.
    ///
    /// - Parameters:
    ///   - text: the text.
    ///   - steps: counts the comparisons, at most twice the text's length.
    /// - Returns: true when it does (always for an empty literal).
    public func occurs(in text: Span<UInt8>, steps: inout Int) -> Bool {
        self.end(in: text, from: 0, to: text.count, steps: &steps) != nil
    }
}
