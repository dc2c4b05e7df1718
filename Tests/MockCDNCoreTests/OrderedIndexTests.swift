import Testing

@testable import MockCDNCore

/// The store's keys in S3's listing order, kept lazily: every page equals the page of a sorted copy, through
/// any mix of puts, overwrites, deletes and keys deleted and put again between listings.
@Suite struct OrderedIndexTests {
    /// The page a sorted copy of the held keys gives.
    static func expected(_ held: Set<String>, prefix: String, after: String?, limit: Int) -> [String] {
        Array(
            held.filter { key in key.hasPrefix(prefix) && (after.map { ObjectKey.listedBefore($0, key) } ?? true) }
                .sorted { ObjectKey.listedBefore($0, $1) }
                .prefix(limit)
        )
    }

    @Test("pages match a sorted copy through puts, overwrites, deletes and re-puts")
    func matchesSortedCopy() throws {
        var random = SeededGenerator(seed: 34)
        var index = OrderedIndex<Int>()
        var held = Set<String>()
        let names = (0..<300).map { "p\($0 % 3)/k\($0)" } + ["Z", "a", "é", "p1"]
        for step in 0..<4000 {
            let name = names.randomElement(using: &random)!
            if Bool.random(using: &random) {
                index[try ObjectKey(name)] = step
                held.insert(name)
            } else {
                index[try ObjectKey(name)] = nil
                held.remove(name)
            }
            guard step % 97 == 0 else { continue }
            for prefix in ["", "p1/", "p2/k1", "q"] {
                let after = [nil, "p1/k150", "p0", "Z"].randomElement(using: &random)!
                let limit = [1, 10, 1000].randomElement(using: &random)!
                let page = index.keys(prefix: prefix, after: after, limit: limit).map(\.rawValue)
                #expect(page == Self.expected(held, prefix: prefix, after: after, limit: limit))
            }
        }
        #expect(index.values.count == held.count)
    }

    @Test("keys are in UTF-8 byte order, and a start point before the prefix starts at the prefix")
    func order() throws {
        var index = OrderedIndex<Int>()
        for name in ["é", "a", "Z", "b/1", "b/2"] { index[try ObjectKey(name)] = 0 }
        #expect(index.keys(prefix: "", after: nil, limit: 10).map(\.rawValue) == ["Z", "a", "b/1", "b/2", "é"])
        #expect(index.keys(prefix: "b/", after: "a", limit: 10).map(\.rawValue) == ["b/1", "b/2"])
        #expect(index.keys(prefix: "b/", after: "b/1", limit: 10).map(\.rawValue) == ["b/2"])
    }
}

/// A small deterministic generator (SplitMix64), so a failing sequence can be run again.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { self.state = seed }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var value = self.state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
